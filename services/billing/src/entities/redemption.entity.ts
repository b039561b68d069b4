import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/** A redemption code: admin-made, redeemable once for quota. */
@Entity({ name: 'redemptions' })
export class RedemptionEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  /** The admin who created it. */
  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'varchar', length: 32 })
  name: string;

  /** 32 hex characters. */
  @Column({ type: 'varchar', length: 32, unique: true })
  key: string;

  /** 1 unused, 2 disabled, 3 used. */
  @Column({ type: 'integer', default: 1 })
  status: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  quota: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  created_time: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  redeemed_time: number;

  @Column({ type: 'integer', default: 0 })
  used_user_id: number;
}
