import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A console user. The password and access token are stored as hashes only. */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 64, unique: true })
  username: string;

  /**
   * What the username is unique by, whatever its case or width (`usernameKey` of contracts):
   * unique in the database. Null only on names that clashed by case before the column existed
   * (the later ones of such a pair; see the UsernameKey migration).
   */
  @Index('users_username_key_unique', { unique: true })
  @Column({ type: 'varchar', length: 255, nullable: true })
  username_key: string | null;

  @Column({ type: 'varchar', length: 64, default: '' })
  display_name: string;

  /** argon2id (or a bcrypt hash imported from the established product). */
  @Column({ type: 'varchar', length: 255 })
  password_hash: string;

  /** True while the factory default root password is in use; the console warns. */
  @Column({ type: 'boolean', default: false })
  password_is_default: boolean;

  @Column({ type: 'varchar', length: 64, default: '' })
  email: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  github_id: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  wechat_id: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  telegram_id: string;

  @Column({ type: 'varchar', length: 64, default: '' })
  linux_do_id: string;

  /** The WxPusher uid the user bound by scanning a QR code ('' unbound): where WxPusher notices go. */
  @Column({ type: 'varchar', length: 64, default: '' })
  wxpusher_uid: string;

  /** The OIDC provider's `sub`; not shown in the API (the console has no row for it). */
  @Column({ type: 'varchar', length: 64, default: '' })
  oidc_id: string;

  @Column({ type: 'integer', default: 1 })
  role: number;

  @Column({ type: 'integer', default: 1 })
  status: number;

  @Column({ type: 'varchar', length: 64, default: 'default' })
  group: string;

  /** The user's own usage limits as JSON text (contracts' RateLimits; '' for none), set by admins. */
  @Column({ type: 'text', default: '' })
  rate_limits: string;

  /**
   * The user's notification settings (notification-settings.ts) as JSON text, `webhook_secret` and
   * `gotify_token` sealed; '' for the defaults (mail to the account's address).
   */
  @Column({ type: 'text', default: '' })
  notification_settings: string;

  @Column({ type: 'varchar', length: 32, unique: true })
  aff_code: string;

  @Column({ type: 'integer', default: 0 })
  inviter_id: number;

  /** The console language of the last registration or sign-in (its Accept-Language): 'zh-CN', 'en-US', or '' when unknown. Mails are written in it. */
  @Column({ type: 'varchar', length: 16, default: '' })
  language: string;

  /** sha256 of the system access token, or null when none was generated. */
  @Column({ type: 'varchar', length: 64, nullable: true, unique: true })
  access_token_hash: string | null;

  @Column({ type: 'bigint', transformer: { to: (value: number) => value, from: (value: string | number) => Number(value) } })
  created_at: number;

  /** Deregistration time (ms since epoch), or null. Deregistered users keep their row. */
  @Column({
    type: 'bigint',
    nullable: true,
    transformer: { to: (value: number | null) => value, from: (value: string | number | null) => (value === null ? null : Number(value)) },
  })
  deleted_at: number | null;
}
