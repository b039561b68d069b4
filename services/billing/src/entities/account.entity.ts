import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/**
 * A user's money: the persisted balance and counters. username, group, role and status are copies
 * kept from identity's events (billing never reads identity's tables).
 */
@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn({ type: 'integer' })
  user_id: number;

  @Column({ type: 'varchar', length: 64, default: '' })
  username: string;

  @Column({ type: 'varchar', length: 64, default: 'default' })
  group: string;

  /** 1 ordinary, 10 admin, 100 super admin. */
  @Column({ type: 'integer', default: 1 })
  role: number;

  /** 1 enabled, 2 banned, 0 deregistered. */
  @Column({ type: 'integer', default: 1 })
  status: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  used_quota: number;

  @Column({ type: 'integer', default: 0 })
  request_count: number;

  @Column({ type: 'integer', default: 0 })
  aff_count: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  aff_quota: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  aff_history_quota: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;

  /** The user's own usage limits as identity publishes them (JSON text, '' for none). */
  @Column({ type: 'text', default: '' })
  rate_limits: string;
}
