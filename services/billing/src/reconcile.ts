import type { DataSource } from 'typeorm';
import { param, queryRows } from '@aigw/platform';
import { LedgerKind } from './entities/index.js';

/**
 * The reconciliation check (invariant I1): every account's persisted balance must equal the sum
 * of its ledger entries (grants + top-ups + admin edits + transfers − recorded usage + refunds of
 * failed tasks), and its used_quota the usage recorded less the refunds (a refunded charge is no
 * longer used). Each balance change writes its ledger row in the same transaction, so any
 * mismatch is a bug (or a hand edit of the database). One grouped scan of the ledger: meant for
 * tests and a nightly check, not for a request path.
 */
export interface AccountMismatch {
  user_id: number;
  quota: number;
  used_quota: number;
  /** Sum of every ledger entry: what `quota` should be. */
  ledger_total: number;
  grants: number;
  topups: number;
  admin: number;
  transfers: number;
  /** Sum of usage entries (zero or negative). */
  usage: number;
  /** Sum of refund entries (zero or positive): −(usage + refunds) is the used_quota expected. */
  refunds: number;
}

type Row = Record<keyof AccountMismatch, number | string>;

export async function reconcile(db: DataSource): Promise<AccountMismatch[]> {
  const values: unknown[] = [];
  // Bound parameters even for our own constants (rule R6); SQLite's `?` needs one value per use.
  const bind = (value: unknown) => {
    values.push(value);
    return param(db, values.length);
  };
  const sumOf = (kind: LedgerKind) => `COALESCE(SUM(CASE WHEN l.kind = ${bind(kind)} THEN l.amount ELSE 0 END), 0)`;
  const select = [
    'a.user_id AS user_id',
    'a.quota AS quota',
    'a.used_quota AS used_quota',
    'COALESCE(SUM(l.amount), 0) AS ledger_total',
    `${sumOf(LedgerKind.Grant)} AS grants`,
    `${sumOf(LedgerKind.Topup)} AS topups`,
    `${sumOf(LedgerKind.Admin)} AS admin`,
    `${sumOf(LedgerKind.Transfer)} AS transfers`,
    `${sumOf(LedgerKind.Usage)} AS usage`,
    `${sumOf(LedgerKind.Refund)} AS refunds`,
  ].join(', ');
  const having = `a.quota <> COALESCE(SUM(l.amount), 0) OR a.used_quota <> 0 - ${sumOf(LedgerKind.Usage)} - ${sumOf(LedgerKind.Refund)}`;
  const rows = await queryRows<Row>(
    db,
    `SELECT ${select} FROM accounts a LEFT JOIN ledger_entries l ON l.user_id = a.user_id ` +
      `GROUP BY a.user_id, a.quota, a.used_quota HAVING ${having} ORDER BY a.user_id`,
    values,
  );
  // PostgreSQL returns bigint and SUM as strings; every figure fits a safe integer (MAX_QUOTA).
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)])) as unknown as AccountMismatch);
}
