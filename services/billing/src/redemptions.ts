import crypto from 'node:crypto';
import { Brackets, type DataSource } from 'typeorm';
import { LogType, msg, RedemptionStatus, type Page, type RedemptionView } from '@aigw/contracts';
import { escapeLike, NotFoundError, param, queryRows, UserError } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { LedgerKind, RedemptionEntity } from './entities/index.js';
import { adjustLiveUser, applyToAccount, ensureAccount, formatQuota, writeLog } from './ledger.js';
import { publishAccountUpdated } from './events.js';

/** The one answer for a wrong, used or disabled code: which of them it was is nobody's business. */
export const INVALID_CODE_MESSAGE = msg('redemption.invalid');

/** 128 random bits as 32 hex characters: unguessable, and the unique index forbids a repeat. */
export function newRedemptionKey(): string {
  return crypto.randomBytes(16).toString('hex');
}

export function toRedemptionView(row: RedemptionEntity): RedemptionView {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    key: row.key,
    status: row.status,
    quota: row.quota,
    created_time: row.created_time,
    redeemed_time: row.redeemed_time,
    used_user_id: row.used_user_id,
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A page of codes, newest first; `keyword` matches the id exactly or the name by prefix. */
export async function listRedemptions(db: DataSource, query: { p: number; page_size: number; keyword?: string }): Promise<Page<RedemptionView>> {
  const builder = db
    .getRepository(RedemptionEntity)
    .createQueryBuilder('redemption')
    .orderBy('redemption.id', 'DESC')
    .offset((query.p - 1) * query.page_size)
    .limit(query.page_size);
  const keyword = query.keyword?.trim();
  if (keyword) {
    // %, _ and \ in the keyword match themselves.
    const like = `${escapeLike(keyword)}%`;
    builder.andWhere(
      new Brackets((where) => {
        if (/^\d{1,9}$/.test(keyword)) where.orWhere('redemption.id = :id', { id: Number(keyword) });
        where.orWhere(`redemption.name LIKE :like ESCAPE '\\'`, { like });
      }),
    );
  }
  const [rows, total] = await builder.getManyAndCount();
  return { items: rows.map(toRedemptionView), total, page: query.p, page_size: query.page_size };
}

export async function getRedemption(db: DataSource, id: number): Promise<RedemptionEntity> {
  const row = await db.getRepository(RedemptionEntity).findOneBy({ id });
  if (!row) throw new NotFoundError(msg('redemption.not_found'));
  return row;
}

/** Creates `count` codes in one transaction (all or none) and returns their keys. */
export async function createRedemptions(db: DataSource, input: { creatorId: number; name: string; quota: number; count: number }): Promise<string[]> {
  const now = nowSeconds();
  const rows = Array.from({ length: input.count }, () => ({
    user_id: input.creatorId,
    name: input.name,
    key: newRedemptionKey(),
    status: RedemptionStatus.Unused,
    quota: input.quota,
    created_time: now,
    redeemed_time: 0,
    used_user_id: 0,
  }));
  await db.transaction((manager) => manager.insert(RedemptionEntity, rows));
  return rows.map((row) => row.key);
}

/**
 * Edits name and quota. The status condition is part of the UPDATE, so an edit racing a
 * redemption either lands before the claim (which then credits the new quota) or not at all.
 */
export async function editRedemption(db: DataSource, input: { id: number; name?: string; quota?: number }): Promise<RedemptionEntity> {
  const changes: Partial<RedemptionEntity> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.quota !== undefined) changes.quota = input.quota;
  if (Object.keys(changes).length > 0) {
    const result = await db
      .getRepository(RedemptionEntity)
      .createQueryBuilder()
      .update()
      .set(changes)
      .where('id = :id AND status <> :used', { id: input.id, used: RedemptionStatus.Used })
      .execute();
    if (!result.affected) {
      await getRedemption(db, input.id); // 404 when it does not exist
      throw new UserError(msg('redemption.used_no_edit'));
    }
  }
  return getRedemption(db, input.id);
}

/** Enables (1) or disables (2). A used code keeps status 3 forever: re-enabling it would let it be redeemed twice. */
export async function setRedemptionStatus(db: DataSource, id: number, status: 1 | 2): Promise<RedemptionEntity> {
  const result = await db
    .getRepository(RedemptionEntity)
    .createQueryBuilder()
    .update()
    .set({ status })
    .where('id = :id AND status <> :used', { id, used: RedemptionStatus.Used })
    .execute();
  if (!result.affected) {
    await getRedemption(db, id);
    throw new UserError(msg('redemption.used_no_toggle'));
  }
  return getRedemption(db, id);
}

export async function deleteRedemption(db: DataSource, id: number): Promise<void> {
  const result = await db.getRepository(RedemptionEntity).delete({ id });
  if (!result.affected) throw new NotFoundError(msg('redemption.not_found'));
}

/**
 * Redeems a code for a user and returns the quota added. Claim first: one conditional UPDATE
 * takes the code (status 1 -> 3) and only the caller whose UPDATE changed the row credits it,
 * in the same transaction as the claim, so 50 concurrent attempts yield exactly one credit and
 * a crash can never leave a used code uncredited (or the reverse).
 */
export async function redeem(context: BillingContext, user: { userId: number; username: string; group: string }, key: string): Promise<number> {
  const { db, options } = context;
  const credited = await db.transaction(async (manager) => {
    const claimed = await queryRows<{ id: number; quota: number | string }>(
      manager,
      `UPDATE redemptions SET status = ${param(db, 1)}, used_user_id = ${param(db, 2)}, redeemed_time = ${param(db, 3)} ` +
        `WHERE "key" = ${param(db, 4)} AND status = ${param(db, 5)} RETURNING id, quota`,
      [RedemptionStatus.Used, user.userId, nowSeconds(), key, RedemptionStatus.Unused],
    );
    // Nothing was written: returning (not throwing) commits an empty transaction.
    if (claimed.length === 0) return null;
    const id = Number(claimed[0]!.id);
    const quota = Number(claimed[0]!.quota);
    await ensureAccount(manager, user.userId, { username: user.username, group: user.group });
    // The code id as the ledger's idempotency key: even a broken claim could not credit a code twice.
    const balance = await applyToAccount(manager, { userId: user.userId, kind: LedgerKind.Topup, amount: quota, requestId: `redemption:${id}` });
    if (balance === null) throw new Error(`account ${user.userId} vanished while redeeming code ${id}`);
    await writeLog(manager, {
      userId: user.userId,
      username: user.username,
      type: LogType.Topup,
      quota,
      message: { id: 'topup.redemption', params: { quota: formatQuota(quota, options.get('QuotaPerUnit')), code_id: String(id) } },
    });
    return quota;
  });
  if (credited === null) throw new UserError(INVALID_CODE_MESSAGE);
  await adjustLiveUser(context.counters, user.userId, credited);
  await publishAccountUpdated(context, user.userId);
  return credited;
}
