import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/**
 * One audit record of an admin action (contracts' audit.ts), from any service's
 * `<service>.audit.recorded`. The id is the record's own, so a redelivered event is stored once.
 * `before_values` and `after_values` are the JSON objects, secrets already masked by the publisher.
 */
@Entity({ name: 'audit_records' })
@Index('audit_records_time', ['time_ms'])
@Index('audit_records_actor', ['actor_id', 'time_ms'])
@Index('audit_records_action', ['action', 'time_ms'])
@Index('audit_records_target', ['target_type', 'target_id', 'time_ms'])
export class AuditRecordEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  /** ms since epoch. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  time_ms: number;

  @Column({ type: 'varchar', length: 16 })
  service: string;

  @Column({ type: 'integer' })
  actor_id: number;

  @Index('audit_records_actor_username')
  @Column({ type: 'varchar', length: 64 })
  actor_username: string;

  @Column({ type: 'integer' })
  actor_role: number;

  @Column({ type: 'varchar', length: 64 })
  action: string;

  @Column({ type: 'varchar', length: 32 })
  target_type: string;

  @Column({ type: 'varchar', length: 128 })
  target_id: string;

  @Column({ type: 'varchar', length: 255 })
  target_label: string;

  @Column({ type: 'text', nullable: true })
  before_values: string | null;

  @Column({ type: 'text', nullable: true })
  after_values: string | null;

  @Column({ type: 'varchar', length: 64 })
  ip: string;
}
