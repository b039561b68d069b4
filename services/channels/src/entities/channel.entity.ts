import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/**
 * An upstream channel. The key is kept only encrypted (AES-256-GCM) and as its sha256 (exact
 * search); views are whitelists that never include either. `group` and `models` are
 * comma-separated; the JSON fields are JSON text as the console edits them.
 */
@Entity({ name: 'channels' })
export class ChannelEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'integer' })
  type: number;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  /** 1 enabled, 2 disabled by hand, 3 disabled automatically. */
  @Column({ type: 'integer', default: 1 })
  status: number;

  /** AES-256-GCM of the key: iv.tag.ciphertext, base64url. */
  @Column({ type: 'text' })
  key_encrypted: string;

  /** sha256 hex of the key; not unique (a copied channel shares its source's key). */
  @Index()
  @Column({ type: 'varchar', length: 64 })
  key_hash: string;

  @Column({ type: 'varchar', length: 1024, default: 'default' })
  group: string;

  @Column({ type: 'text', default: '' })
  models: string;

  @Column({ type: 'varchar', length: 2048, default: '' })
  base_url: string;

  @Column({ type: 'text', default: '' })
  other: string;

  @Column({ type: 'text', default: '' })
  model_mapping: string;

  @Column({ type: 'text', default: '' })
  status_code_mapping: string;

  @Column({ type: 'text', default: '' })
  param_override: string;

  @Column({ type: 'text', default: '' })
  setting: string;

  @Column({ type: 'varchar', length: 128, default: '' })
  test_model: string;

  @Column({ type: 'integer', default: 1 })
  auto_ban: number;

  @Index()
  @Column({ type: 'varchar', length: 64, default: '' })
  tag: string;

  @Column({ type: 'integer', default: 0 })
  priority: number;

  @Column({ type: 'integer', default: 0 })
  weight: number;

  @Column({ type: 'varchar', length: 128, default: '' })
  openai_organization: string;

  /** Milliseconds of the last test. */
  @Column({ type: 'integer', default: 0 })
  response_time: number;

  /** USD, as the upstream reports it. */
  @Column({ type: 'double precision', default: 0 })
  balance: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  balance_updated_time: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  used_quota: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  created_time: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  test_time: number;

  /** JSON text: `status_reason` and `status_time` of the last automatic disable. */
  @Column({ type: 'text', default: '' })
  other_info: string;

  /**
   * The channel may reach loopback, private and link-local upstreams (rule R2). Null only on a
   * channel from before the flag, until channels adopts root's AllowPrivateNetworkUpstreams for it
   * at start (`adoptPrivateNetworkDefault`); treated as false meanwhile.
   */
  @Column({ type: 'boolean', nullable: true })
  allow_private_network: boolean | null;

  /**
   * JSON text in the established product's names: the key states of a channel with many keys
   * (domain/multi-key.ts); '' for a channel with one key.
   */
  @Column({ type: 'text', default: '' })
  channel_info: string;

  /** The channel's usage limits as JSON text (contracts' RateLimits; '' for none): routing skips it at its limit. */
  @Column({ type: 'text', default: '' })
  rate_limits: string;

  /** Grows with every change of the routing facts, so the relay can ignore a late event. */
  @Column({ type: 'integer', default: 1 })
  version: number;
}
