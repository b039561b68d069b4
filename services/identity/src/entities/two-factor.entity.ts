import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

const epoch = { to: (value: number | null) => value, from: (value: string | number | null) => (value === null ? null : Number(value)) };

/**
 * A user's TOTP second factor. The secret is sealed (AES-256-GCM under a key derived from the
 * service secret); `last_step` is the last 30-second step a code was accepted for, so a code is
 * good once (a conditional update claims the step). A row with `enabled` false is a setup
 * waiting for its first code.
 */
@Entity({ name: 'user_two_factor' })
export class TwoFactorEntity {
  @PrimaryColumn({ type: 'integer' })
  user_id: number;

  @Column({ type: 'text' })
  secret_sealed: string;

  @Column({ type: 'boolean', default: false })
  enabled: boolean;

  @Column({ type: 'bigint', default: 0, transformer: epoch })
  last_step: number;

  @Column({ type: 'bigint', transformer: epoch })
  created_at: number;
}

/** One backup code of a user, stored as an HMAC; `used_at` is set once, by a conditional update. */
@Entity({ name: 'user_backup_codes' })
@Index('user_backup_codes_user_hash', ['user_id', 'code_hash'])
export class BackupCodeEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'varchar', length: 64 })
  code_hash: string;

  @Column({ type: 'bigint', nullable: true, transformer: epoch })
  used_at: number | null;
}
