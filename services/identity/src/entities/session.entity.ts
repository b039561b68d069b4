import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

const epoch = { to: (value: number) => value, from: (value: string | number) => Number(value) };

/**
 * A console session. The cookie holds a random secret; only its sha256 is stored, so a database
 * leak does not leak sessions. Deleting the row revokes the session on every gateway replica.
 */
@Entity({ name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id_hash: string;

  @Index()
  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'bigint', transformer: epoch })
  created_at: number;

  @Column({ type: 'bigint', transformer: epoch })
  expires_at: number;
}
