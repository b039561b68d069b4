import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/**
 * A webhook endpoint registered by root: where matching events are POSTed, and the secret that
 * signs them, sealed at rest with the notifier's key (AES-256-GCM) and never shown after the
 * answer that created or rotated it.
 */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** JSON list of NATS-style subject patterns (`billing.>`, `*.channel.*`), each matching a known event. */
  @Column({ type: 'text', default: '[]' })
  subjects: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  description: string;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** The signing secret, sealed with `sealSecret`. */
  @Column({ type: 'text' })
  secret_encrypted: string;

  /** Unix seconds. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;

  /** Unix seconds. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  updated_at: number;
}
