import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

const epoch = { to: (value: number | null) => value, from: (value: string | number | null) => (value === null ? null : Number(value)) };

/**
 * A passkey (WebAuthn credential) of a user: the credential id the authenticator names and the
 * public key it signs with. Nothing here is secret; the counter is kept as the specification
 * asks (a cloned authenticator shows up as a counter that goes back).
 */
@Entity({ name: 'passkey_credentials' })
export class PasskeyEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Index('passkey_credentials_user')
  @Column({ type: 'integer' })
  user_id: number;

  /** base64url, as the authenticator returns it. */
  @Index('passkey_credentials_credential', { unique: true })
  @Column({ type: 'varchar', length: 1024 })
  credential_id: string;

  /** COSE public key, base64url. */
  @Column({ type: 'text' })
  public_key: string;

  @Column({ type: 'bigint', default: 0, transformer: epoch })
  counter: number;

  /** JSON array of transports (usb, nfc, ble, internal, hybrid). */
  @Column({ type: 'varchar', length: 255, default: '[]' })
  transports: string;

  @Column({ type: 'boolean', default: false })
  backed_up: boolean;

  @Column({ type: 'varchar', length: 64, default: '' })
  name: string;

  @Column({ type: 'bigint', transformer: epoch })
  created_at: number;

  @Column({ type: 'bigint', nullable: true, transformer: epoch })
  last_used_at: number | null;
}
