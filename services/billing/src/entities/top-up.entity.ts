import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { TopUpStatus } from '@aigw/contracts';
import { bigintNumber } from '@aigw/platform';

/**
 * An online top-up order (docs/compatibility.md section 6): created pending when the user is sent
 * to the payment gateway, made `success` exactly once (the gateway's verified notify or an admin's
 * manual completion) in the same transaction that credits the quota.
 */
@Entity({ name: 'top_ups' })
@Index('top_ups_user', ['user_id', 'id'])
export class TopUpEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'integer' })
  user_id: number;

  /** Quota units credited when paid (fixed when the order is made). */
  @Column({ type: 'bigint', transformer: bigintNumber })
  amount: number;

  /** Money payable as exact decimal text with 2 decimals ('14.60'): never a float. */
  @Column({ type: 'varchar', length: 32 })
  money: string;

  /** Our order number (`USR<uid>NO<random><unix>`), the gateway's out_trade_no. */
  @Column({ type: 'varchar', length: 64, unique: true })
  trade_no: string;

  /** The gateway's own trade number, from its notify ('' until then or when completed by hand). */
  @Column({ type: 'varchar', length: 64, default: '' })
  gateway_trade_no: string;

  /** What the gateway was asked for (alipay, wxpay). */
  @Column({ type: 'varchar', length: 32 })
  payment_method: string;

  /** Which payment gateway: 'epay'. */
  @Column({ type: 'varchar', length: 16 })
  gateway: string;

  @Column({ type: 'varchar', length: 16 })
  status: TopUpStatus;

  /** Unix seconds. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;

  /** Unix seconds; 0 while pending. */
  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  completed_at: number;

  /** 0: completed by the gateway's notify; else the admin who completed it by hand. */
  @Column({ type: 'integer', default: 0 })
  completed_by: number;
}
