import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/**
 * An API token (sk- key). The key is stored as its sha256 (lookup), its first and last characters
 * (display) and encrypted with AES-GCM (so the owner can reveal it again on purpose).
 */
@Entity({ name: 'tokens' })
export class TokenEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Index()
  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  /** sha256 hex of the 48-character key (without sk-). */
  @Column({ type: 'varchar', length: 64, unique: true })
  key_hash: string;

  /** First 4 and last 4 characters of the key, for the masked display (`sk-abcd**********wxyz`). */
  @Column({ type: 'varchar', length: 16 })
  key_prefix: string;

  /** AES-256-GCM of the key: iv.tag.ciphertext, base64url. */
  @Column({ type: 'text' })
  key_encrypted: string;

  /** 1 enabled or 2 disabled as set by the owner; expired/exhausted are derived on read. */
  @Column({ type: 'integer', default: 1 })
  status: number;

  @Column({ type: 'bigint', transformer: bigintNumber })
  created_time: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  accessed_time: number;

  /** Unix seconds, -1 for never. */
  @Column({ type: 'bigint', default: -1, transformer: bigintNumber })
  expired_time: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  remain_quota: number;

  @Column({ type: 'boolean', default: false })
  unlimited_quota: boolean;

  @Column({ type: 'bigint', default: 0, transformer: bigintNumber })
  used_quota: number;

  @Column({ type: 'boolean', default: false })
  model_limits_enabled: boolean;

  @Column({ type: 'text', default: '' })
  model_limits: string;

  /** Allowed client addresses, one IP or CIDR range per line ('' allows every address). */
  @Column({ type: 'text', default: '' })
  allow_ips: string;

  /** Refused client addresses, one IP or CIDR range per line; a match wins over `allow_ips`. */
  @Column({ type: 'text', default: '' })
  deny_ips: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  group: string;

  /** The key's usage limits as JSON text (contracts' RateLimits; '' limits nothing). */
  @Column({ type: 'text', default: '' })
  rate_limits: string;

  /** The text a refusal by `rate_limits` answers with ('' = the default text). */
  @Column({ type: 'varchar', length: 255, default: '' })
  rate_limit_message: string;

  /** The Midjourney modes the key may draw in, comma-separated (`relax,turbo`; '' = every mode). */
  @Column({ type: 'varchar', length: 64, default: '' })
  drawing_modes: string;
}
