import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/**
 * A request the relay forwarded and has not reported yet (`relay.request.started`). Deleted in
 * the transaction that applies its usage record; should its relay die first, the pending sweep
 * applies `record` (no usage, nothing charged) instead, so every forwarded request ends with
 * exactly one usage record even when Redis lost the hold.
 */
@Entity({ name: 'pending_requests' })
export class PendingRequestEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  request_id: string;

  @Column({ type: 'integer' })
  user_id: number;

  /** The relay instance serving it: `name#incarnation`. */
  @Column({ type: 'varchar', length: 200 })
  owner: string;

  /** Epoch ms: the request cannot last longer. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  expires_at: number;

  /** Epoch ms when a sweep first found the owner's lease missing; 0 while it is alive. */
  @Column({ type: 'bigint', transformer: bigintNumber, default: 0 })
  owner_missing_since: number;

  /** The usage record (JSON) to apply should the relay never report. */
  @Column({ type: 'text' })
  record: string;

  @Index()
  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;
}
