import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/** notice: a user's own notice by the method they chose (Bark, Gotify, WxPusher, their webhook). */
export type DeliveryKind = 'mail' | 'webhook' | 'notice';
/** pending: queued or being retried; sent: accepted by the SMTP server or answered 2xx; failed: given up after its retries. */
export type DeliveryStatus = 'pending' | 'sent' | 'failed';

/**
 * One outgoing mail or webhook call. The row is written before the job is queued and the job
 * carries only its id, so a retry (or a redelivery after a worker died) finds the row and never
 * sends a delivery that is already `sent`.
 */
@Entity({ name: 'deliveries' })
export class DeliveryEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 16 })
  kind: DeliveryKind;

  /** Mail: the recipient address. Webhook: the endpoint URL. Notice: the method and host (no secret). */
  @Column({ type: 'varchar', length: 2048 })
  target: string;

  /** Mail: the template. Webhook: the event subject. */
  @Column({ type: 'varchar', length: 128 })
  topic: string;

  /** What identifies the cause (the event id, or the mail request's id): one delivery per cause and target. */
  @Column({ type: 'varchar', length: 128 })
  dedupe_key: string;

  /** Webhook deliveries: the endpoint's id; 0 for mail. */
  @Column({ type: 'integer', default: 0 })
  webhook_id: number;

  /** Mail: the rendered message (JSON: subject, text, html). Webhook: the request body. Notice: its request, sealed (it may hold the user's token). */
  @Column({ type: 'text', default: '' })
  payload: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** The last failure (never a secret); '' once sent. */
  @Column({ type: 'text', default: '' })
  last_error: string;

  /** Webhook: the HTTP status of the last attempt (0: no answer). */
  @Column({ type: 'integer', default: 0 })
  response_status: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  updated_at: number;
}
