import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/**
 * One async task of any platform (Midjourney, Suno, later video): the platform is data, not a
 * table. Times are unix milliseconds (0: not yet); the JSON fields are JSON text as the upstream
 * gave them. Indexes (see the migration): unique (platform, task_id) where task_id is set,
 * (user_id, submit_time), (channel_id, submit_time), (platform, status), (submit_time).
 */
@Entity({ name: 'tasks' })
export class TaskEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  /** 'midjourney', 'suno', ... */
  @Column({ type: 'varchar', length: 32 })
  platform: string;

  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'integer', default: 0 })
  token_id: number;

  @Column({ type: 'integer', default: 0 })
  channel_id: number;

  /** IMAGINE, UPSCALE, ..., MUSIC, LYRICS. */
  @Column({ type: 'varchar', length: 32 })
  action: string;

  /** The upstream's task id (Midjourney's mj_id); '' until the upstream accepted the submit. */
  @Column({ type: 'varchar', length: 128, default: '' })
  task_id: string;

  /** Midjourney's submit code (1 submitted, 21 waiting, 22 duplicate, ...); 0 elsewhere. */
  @Column({ type: 'integer', default: 0 })
  code: number;

  /** NOT_START, SUBMITTED, QUEUED, IN_PROGRESS, FAILURE, SUCCESS, UNKNOWN. */
  @Column({ type: 'varchar', length: 20, default: 'NOT_START' })
  status: string;

  /** "0%".."100%" */
  @Column({ type: 'varchar', length: 20, default: '' })
  progress: string;

  @Column({ type: 'text', default: '' })
  prompt: string;

  @Column({ type: 'text', default: '' })
  prompt_en: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'varchar', length: 2048, default: '' })
  image_url: string;

  /** JSON text of the upstream's result (Suno's clips with their audio links). */
  @Column({ type: 'text', default: '' })
  data: string;

  /** JSON text: Midjourney's follow-up buttons. */
  @Column({ type: 'text', default: '' })
  buttons: string;

  /** JSON text: the upstream's properties (final prompt, notify hook, ...). */
  @Column({ type: 'text', default: '' })
  properties: string;

  @Column({ type: 'text', default: '' })
  fail_reason: string;

  /** Quota charged at submit (and by a modal confirming the task): what the relay settled. */
  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  quota: number;

  /**
   * The request ids of those charges, space-separated: a refund gives back what billing recorded
   * for them (see `relay.task.refunded`).
   */
  @Column({ type: 'text', default: '' })
  charge_requests: string;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  submit_time: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  start_time: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  finish_time: number;

  /** Set once, in the same statement that decides the refund: a failure seen twice refunds once. */
  @Column({ type: 'boolean', default: false })
  refunded: boolean;

  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  updated_at: number;
}
