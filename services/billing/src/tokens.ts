import { Brackets, In, type EntityManager } from 'typeorm';
import {
  DRAWING_MODES,
  msg,
  TOKEN_NAME_MAX,
  TokenStatus,
  parseRateLimits,
  storedRateLimits,
  type CreateTokenBody,
  type DrawingMode,
  type Page,
  type ResolvedToken,
  type RevealedKey,
  type TokenView,
  type UpdateTokenBody,
} from '@aigw/contracts';
import { escapeLike, NotFoundError, openSecret, parseAllowIps, sealSecret, UserError } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, TokenEntity } from './entities/index.js';
import { counterKeys } from './ledger.js';
import { publishTokenDeleted, publishTokenUpdated } from './events.js';
import { generateKey, hashKey, KEY_LENGTH, KEY_PREFIX, maskKey, randomAlphanumeric, VISIBLE_CHARS, visibleChars } from './domain/token-key.js';
import { canEnable, effectiveStatus, nowSeconds } from './domain/token-status.js';

/**
 * API tokens: every function takes the owner's id and only ever touches that owner's rows, so
 * another user's token is indistinguishable from a missing one (BOLA, test B1). The key is
 * never stored in plaintext (rule R5) and leaves only at creation and through `revealKey`.
 */

/** The caller as the routes know it: their id and (for the group rule) their own group. */
export interface TokenOwner {
  userId: number;
  group: string;
}

export type CreatedToken = TokenView & { key: string };
/** An edit as the route accepts it: any status number, judged in `updateToken`. */
export type TokenEdit = Omit<UpdateTokenBody, 'status'> & { status?: number };

const notFound = () => new NotFoundError(msg('tokens.not_found'));
const SUFFIX_LENGTH = 6;

/** The whitelist of what a token shows (rule R4): masked key, effective status. */
export function toTokenView(row: TokenEntity, now = nowSeconds()): TokenView {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    key: maskKey(row.key_prefix),
    status: effectiveStatus(row, now),
    created_time: row.created_time,
    accessed_time: row.accessed_time,
    expired_time: row.expired_time,
    remain_quota: row.remain_quota,
    unlimited_quota: row.unlimited_quota,
    used_quota: row.used_quota,
    model_limits_enabled: row.model_limits_enabled,
    model_limits: row.model_limits,
    allow_ips: row.allow_ips,
    deny_ips: row.deny_ips,
    group: row.group,
    rate_limits: parseRateLimits(row.rate_limits),
    rate_limit_message: row.rate_limit_message,
    drawing_modes: parseDrawingModes(row.drawing_modes),
  };
}

/** `a, b,,a` -> `a,b`. */
export function normaliseModelLimits(text: string): string {
  return [
    ...new Set(
      text
        .split(',')
        .map((model) => model.trim())
        .filter(Boolean),
    ),
  ].join(',');
}

function normaliseIps(text: string, field: 'allow_ips' | 'deny_ips'): string {
  const parsed = parseAllowIps(text, field);
  if (!parsed.ok) throw new UserError(parsed.message);
  return parsed.entries.join('\n');
}

/** The modes as stored: deduplicated, in their fixed order, comma-separated ('' = every mode). */
function storedDrawingModes(modes: readonly DrawingMode[]): string {
  return DRAWING_MODES.filter((mode) => modes.includes(mode)).join(',');
}

/** Stored modes read leniently: an unknown word (a mode since withdrawn) is dropped. */
function parseDrawingModes(text: string): DrawingMode[] {
  const stored = text.split(',');
  return DRAWING_MODES.filter((mode) => stored.includes(mode));
}

/** '' (the owner's group), the owner's own group, or one the admin lets users pick that has a ratio. */
function checkGroup(context: BillingContext, group: string, ownerGroup: string): void {
  if (group === '' || group === ownerGroup) return;
  const usable = context.options.get('UserUsableGroups');
  const ratios = context.options.get('GroupRatio');
  if (!Object.hasOwn(usable, group) || !Object.hasOwn(ratios, group)) throw new UserError(`group: ${msg('tokens.group_not_usable', { group })}`);
}

/** Ids are 32-bit columns: a larger one cannot exist (and PostgreSQL would reject the query). */
const MAX_ID = 2_147_483_647;

async function findOwned(manager: EntityManager, userId: number, id: number): Promise<TokenEntity> {
  if (id > MAX_ID) throw notFound();
  const row = await manager.findOneBy(TokenEntity, { id, user_id: userId });
  if (!row) throw notFound();
  return row;
}

/** Creates `count` tokens in one transaction; extras are named `<name>-xxxxxx`. Keys are returned once. */
export async function createTokens(context: BillingContext, owner: TokenOwner, body: CreateTokenBody): Promise<CreatedToken[]> {
  checkGroup(context, body.group, owner.group);
  const fields = {
    user_id: owner.userId,
    status: TokenStatus.Enabled,
    expired_time: body.expired_time,
    remain_quota: body.remain_quota,
    unlimited_quota: body.unlimited_quota,
    used_quota: 0,
    model_limits_enabled: body.model_limits_enabled,
    model_limits: normaliseModelLimits(body.model_limits),
    allow_ips: normaliseIps(body.allow_ips, 'allow_ips'),
    deny_ips: normaliseIps(body.deny_ips, 'deny_ips'),
    group: body.group,
    rate_limits: storedRateLimits(body.rate_limits),
    rate_limit_message: body.rate_limit_message,
    drawing_modes: storedDrawingModes(body.drawing_modes),
  };
  // Extras keep the base short enough that their name still passes the name rule when edited.
  const base = body.name.slice(0, TOKEN_NAME_MAX - SUFFIX_LENGTH - 1);
  const now = nowSeconds();
  const created = await context.db.transaction(async (manager) => {
    const out: Array<{ row: TokenEntity; key: string }> = [];
    for (let index = 0; index < body.count; index++) {
      const key = generateKey();
      const row = manager.create(TokenEntity, {
        ...fields,
        name: index === 0 ? body.name : `${base}-${randomAlphanumeric(SUFFIX_LENGTH)}`,
        key_hash: hashKey(key),
        key_prefix: visibleChars(key),
        key_encrypted: sealSecret(key, context.tokenKeySecret),
        created_time: now,
        accessed_time: now,
      });
      // A copy goes in: on PostgreSQL the insert writes RETURNING values (bigints as strings) back into its argument.
      row.id = (await manager.insert(TokenEntity, { ...row })).identifiers[0]!.id as number;
      out.push({ row, key });
    }
    return out;
  });
  await publishUpdated(
    context,
    created.map(({ row }) => row),
  );
  return created.map(({ row, key }) => ({ ...toTokenView(row, now), key: KEY_PREFIX + key }));
}

/**
 * A full edit, or with `statusOnly` just the status. A full edit ignores `status` (the console
 * sends back the displayed, derived status with every edit, as the established product does).
 */
export async function updateToken(context: BillingContext, owner: TokenOwner, body: TokenEdit, statusOnly: boolean): Promise<TokenView> {
  const { db, counters } = context;
  const outcome = await db.transaction(async (manager) => {
    const row = await findOwned(manager, owner.userId, body.id);
    const changes: Partial<TokenEntity> = {};
    let delta = 0;
    if (statusOnly) {
      if (body.status !== TokenStatus.Enabled && body.status !== TokenStatus.Disabled) throw new UserError(`status: ${msg('validation.enabled_or_disabled')}`);
      // Judged on the derived state, whatever is stored: an expired token shows 3 and stays off.
      if (body.status === TokenStatus.Enabled) {
        const decision = canEnable(row);
        if (!decision.allowed) throw new UserError(decision.message);
      }
      changes.status = body.status;
    } else {
      if (body.name !== undefined) changes.name = body.name;
      if (body.expired_time !== undefined) changes.expired_time = body.expired_time;
      if (body.unlimited_quota !== undefined) changes.unlimited_quota = body.unlimited_quota;
      if (body.model_limits_enabled !== undefined) changes.model_limits_enabled = body.model_limits_enabled;
      if (body.model_limits !== undefined) changes.model_limits = normaliseModelLimits(body.model_limits);
      if (body.allow_ips !== undefined) changes.allow_ips = normaliseIps(body.allow_ips, 'allow_ips');
      if (body.deny_ips !== undefined) changes.deny_ips = normaliseIps(body.deny_ips, 'deny_ips');
      if (body.rate_limits !== undefined) changes.rate_limits = storedRateLimits(body.rate_limits);
      if (body.rate_limit_message !== undefined) changes.rate_limit_message = body.rate_limit_message;
      if (body.drawing_modes !== undefined) changes.drawing_modes = storedDrawingModes(body.drawing_modes);
      if (body.group !== undefined && body.group !== row.group) {
        checkGroup(context, body.group, owner.group); // an unchanged group stays valid even if the admin withdrew it since
        changes.group = body.group;
      }
      if (body.remain_quota !== undefined) delta = body.remain_quota - row.remain_quota;
    }
    const update = manager.createQueryBuilder().update(TokenEntity).where('id = :id AND user_id = :userId', { id: row.id, userId: owner.userId });
    // Quota moves by a delta, never by a set, so a usage settlement landing meanwhile is not lost
    // and the live counter (moved by the same delta) stays in step with the row.
    if (delta !== 0) update.set({ ...changes, remain_quota: () => 'remain_quota + :delta' }).setParameter('delta', delta);
    else update.set(changes);
    if (delta !== 0 || Object.keys(changes).length > 0) await update.execute();
    return {
      row: await findOwned(manager, owner.userId, row.id),
      delta,
      limitFlipped: changes.unlimited_quota !== undefined && changes.unlimited_quota !== row.unlimited_quota,
    };
  });
  const counterKey = counterKeys.token(outcome.row.id);
  // The relay does not track an unlimited token's counter: after a flip it is stale, so drop it
  // and let the next request seed it from the database.
  if (outcome.limitFlipped) await counters.delete(counterKey);
  else if (outcome.delta !== 0) await counters.adjust(counterKey, outcome.delta);
  await publishUpdated(context, [outcome.row]);
  return toTokenView(outcome.row);
}

export async function deleteToken(context: BillingContext, userId: number, id: number): Promise<void> {
  const row = await findOwned(context.db.manager, userId, id);
  const result = await context.db.getRepository(TokenEntity).delete({ id, user_id: userId });
  if (!result.affected) throw notFound(); // deleted concurrently
  await context.counters.delete(counterKeys.token(id));
  await publishTokenDeleted(context.bus, { token_id: id, user_id: userId, key_hash: row.key_hash });
}

export async function getToken(context: BillingContext, userId: number, id: number): Promise<TokenView> {
  return toTokenView(await findOwned(context.db.manager, userId, id));
}

/** The full key again, for its owner only. */
export async function revealKey(context: BillingContext, userId: number, id: number): Promise<string> {
  return openKey(context, await findOwned(context.db.manager, userId, id));
}

/**
 * The full keys of several of the owner's tokens, in the order asked. All or nothing: one id
 * that is not the owner's answers exactly like a missing token, as `revealKey` does, so a batch
 * neither reveals part of a selection nor tells which ids exist.
 */
export async function revealKeys(context: BillingContext, userId: number, ids: readonly number[]): Promise<RevealedKey[]> {
  if (ids.some((id) => id > MAX_ID)) throw notFound();
  const rows = await context.db.getRepository(TokenEntity).findBy({ id: In([...ids]), user_id: userId });
  // Number(): PostgreSQL drivers may hand back ids as strings.
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw notFound();
    return { id, key: openKey(context, row) };
  });
}

/** The one place a stored key is decrypted; a key that no longer opens is logged for the admin and refused. */
function openKey(context: BillingContext, row: TokenEntity): string {
  try {
    return KEY_PREFIX + openSecret(row.key_encrypted, context.tokenKeySecret);
  } catch (error) {
    context.logger.error({ err: error, tokenId: row.id }, 'a stored token key does not decrypt (was the token key secret changed?)');
    throw new UserError(`key: ${msg('tokens.key_unavailable')}`);
  }
}

export interface TokenQuery {
  page: number;
  pageSize: number;
  /** Matches the name (case-insensitive substring). */
  keyword?: string;
  /** A full key (matched by hash), a visible prefix `sk-abcd`, or a masked key `sk-abcd****wxyz`. */
  token?: string;
}

/** The owner's tokens, newest first. */
export async function listTokens(context: BillingContext, userId: number, query: TokenQuery): Promise<Page<TokenView>> {
  const builder = context.db
    .getRepository(TokenEntity)
    .createQueryBuilder('token')
    .where('token.user_id = :userId', { userId })
    .orderBy('token.id', 'DESC')
    .offset((query.page - 1) * query.pageSize)
    .limit(query.pageSize);
  const keyword = query.keyword?.trim();
  if (keyword) {
    // %, _ and \ in the keyword match themselves.
    const like = `%${escapeLike(keyword.toLowerCase())}%`;
    builder.andWhere(`LOWER(token.name) LIKE :like ESCAPE '\\'`, { like });
  }
  if (query.token?.trim()) builder.andWhere(keyCondition(query.token.trim()));
  const [rows, total] = await builder.getManyAndCount();
  const now = nowSeconds();
  return { items: rows.map((row) => toTokenView(row, now)), total, page: query.page, page_size: query.pageSize };
}

/** How a `token` search term matches: only what is visible (or the hash of a whole key) can be compared. */
function keyCondition(term: string): Brackets {
  const value = term.replace(/^sk-/, '');
  const [head = '', tail = ''] = value.split(/\*+/);
  return new Brackets((where) => {
    if (!/^[A-Za-z0-9]*$/.test(head) || !/^[A-Za-z0-9]*$/.test(tail)) where.where('1 = 0');
    else if (head.length === KEY_LENGTH) where.where('token.key_hash = :hash', { hash: hashKey(head) });
    else {
      // Alphanumeric only (checked above), so no LIKE escaping is needed.
      where.where('token.key_prefix LIKE :head', { head: `${head.slice(0, VISIBLE_CHARS)}%` });
      if (tail) where.andWhere('token.key_prefix LIKE :tail', { tail: `%${tail.slice(-VISIBLE_CHARS)}` });
    }
  });
}

/** The relay's view of a key (no key, no secret); null when unknown or its owner has no account yet. */
export async function resolveToken(context: BillingContext, keyHash: string): Promise<ResolvedToken | null> {
  const row = await context.db.getRepository(TokenEntity).findOneBy({ key_hash: keyHash });
  if (!row) return null;
  const account = await context.db.getRepository(AccountEntity).findOneBy({ user_id: row.user_id });
  return account ? toResolved(row, account) : null;
}

function toResolved(row: TokenEntity, account: AccountEntity): ResolvedToken {
  return {
    token_id: row.id,
    user_id: row.user_id,
    name: row.name,
    status: effectiveStatus(row),
    expired_time: row.expired_time,
    unlimited_quota: row.unlimited_quota,
    model_limits_enabled: row.model_limits_enabled,
    model_limits: row.model_limits ? row.model_limits.split(',') : [],
    allow_ips: row.allow_ips ? row.allow_ips.split('\n') : [],
    deny_ips: row.deny_ips ? row.deny_ips.split('\n') : [],
    group: row.group || account.group,
    owner_status: account.status,
    owner_group: account.group,
    owner_role: account.role,
    rate_limits: parseRateLimits(row.rate_limits),
    rate_limit_message: row.rate_limit_message,
    drawing_modes: parseDrawingModes(row.drawing_modes),
    owner_rate_limits: parseRateLimits(account.rate_limits),
  };
}

/**
 * After commit: tells the relay's caches. Without an account (its registration event not yet
 * handled) `resolveToken` answers null, so no cache holds the token as valid and there is
 * nothing to refresh.
 */
async function publishUpdated(context: BillingContext, rows: TokenEntity[]): Promise<void> {
  if (rows.length === 0) return;
  const account = await context.db.getRepository(AccountEntity).findOneBy({ user_id: rows[0]!.user_id });
  if (!account) return;
  for (const row of rows) await publishTokenUpdated(context.bus, { ...toResolved(row, account), key_hash: row.key_hash });
}
