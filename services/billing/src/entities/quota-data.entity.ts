import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/** Hourly usage per user and model, for the data dashboard. Unique on (user_id, model_name, created_at). */
@Entity({ name: 'quota_data' })
export class QuotaDataEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'varchar', length: 64, default: '' })
  username: string;

  @Column({ type: 'varchar', length: 128 })
  model_name: string;

  /** Start of the hour, unix seconds. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;

  @Column({ type: 'integer', default: 0 })
  count: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  token_used: number;
}
