import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/** A usage or account log row (types 1 top-up, 2 consume, 3 manage, 4 system, 5 error: a usage-limit refusal). Indexes: see the migration. */
@Entity({ name: 'logs' })
export class LogEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  /** Set for consume and error logs: the relay's request id (unique). */
  @Column({ type: 'varchar', length: 64, nullable: true, unique: true })
  request_id: string | null;

  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'varchar', length: 64, default: '' })
  username: string;

  /** Unix seconds. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;

  @Column({ type: 'integer' })
  type: number;

  @Column({ type: 'text', default: '' })
  content: string;

  @Column({ type: 'integer', default: 0 })
  token_id: number;

  @Column({ type: 'varchar', length: 64, default: '' })
  token_name: string;

  @Column({ type: 'varchar', length: 128, default: '' })
  model_name: string;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;

  @Column({ type: 'integer', default: 0 })
  prompt_tokens: number;

  @Column({ type: 'integer', default: 0 })
  completion_tokens: number;

  /** Seconds. */
  @Column({ type: 'integer', default: 0 })
  use_time: number;

  @Column({ type: 'boolean', default: false })
  is_stream: boolean;

  @Column({ type: 'integer', default: 0 })
  channel_id: number;

  @Column({ type: 'varchar', length: 64, default: '' })
  group: string;

  /** JSON text. */
  @Column({ type: 'text', default: '' })
  other: string;
}
