import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '@aigw/platform';

/** Why a balance moved. */
export const LedgerKind = {
  Grant: 'grant',
  Topup: 'topup',
  Admin: 'admin',
  Transfer: 'transfer',
  Usage: 'usage',
  /** A failed async task's charge given back (`relay.task.refunded`); request_id is the refund id. */
  Refund: 'refund',
} as const;
export type LedgerKind = (typeof LedgerKind)[keyof typeof LedgerKind];

/**
 * Every change of an account's quota, written in the same transaction as the change. The
 * balance always equals the sum of its entries (the reconciliation check), and a request id
 * can be applied once only (unique).
 */
@Entity({ name: 'ledger_entries' })
export class LedgerEntryEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Index()
  @Column({ type: 'integer' })
  user_id: number;

  @Column({ type: 'varchar', length: 16 })
  kind: LedgerKind;

  /** Signed change of the balance. */
  @Column({ type: 'bigint', transformer: bigintNumber })
  amount: number;

  /** The relay's request id for usage (the refund id for a refund); unique, so a redelivered event cannot apply twice. */
  @Column({ type: 'varchar', length: 64, nullable: true, unique: true })
  request_id: string | null;

  /** The admin who made an admin change (the manage log names them too); null otherwise. */
  @Column({ type: 'integer', nullable: true })
  actor_id: number | null;

  @Column({ type: 'bigint', transformer: bigintNumber })
  created_at: number;
}
