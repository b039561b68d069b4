import { In, IsNull, type EntityManager, type FindOptionsWhere } from 'typeorm';
import {
  ChannelStatus,
  joinKeys,
  msg,
  splitKeys,
  storedRateLimits,
  type CreateChannelBody,
  type MultiKeyMode,
  type TagEditBody,
  type UpdateChannelBody,
} from '@aigw/contracts';
import { isPostgres, NotFoundError, sealSecret, UserError } from '@aigw/platform';
import type { ChannelsContext } from './context.js';
import { AbilityEntity, ChannelEntity } from './entities/index.js';
import { replaceAbilities } from './abilities.js';
import { publishDeleted, publishUpdated } from './events.js';
import { checkStringMap, copyName, normaliseList, nowSeconds, withStatusReason } from './domain/channel-fields.js';
import { hashKey, keyProblem, MAX_BATCH_KEYS } from './domain/channel-key.js';
import { keyStates, reindexed, withKeyStates, type KeyStates } from './domain/multi-key.js';
import { channelKey } from './stored-key.js';
import { auditPrivateNetwork, type ChannelActor } from './private-network.js';
import { auditedChannel, channelTarget, publishChannelAudit } from './audit.js';

/**
 * The channel write paths. Each one changes channels and their abilities in ONE transaction,
 * bumps `version` on every routing change, and publishes the routing rows after commit; an
 * admin's change (an `actor` given) also its audit records.
 */

export type ChannelChange = Partial<Omit<ChannelEntity, 'id' | 'version'>>;
type Where = FindOptionsWhere<ChannelEntity> | Array<FindOptionsWhere<ChannelEntity>>;

const notFound = () => new NotFoundError(msg('channel.not_found'));

/**
 * Applies `change` to every channel `where` selects, in one transaction, and publishes the
 * changed rows (and, for an admin's change, a `channel.updated` record of each row whose settings
 * changed). On PostgreSQL the rows are locked (in id order, so two sweeps cannot deadlock)
 * before `change` sees them; SQLite transactions already take turns. `change` returns null to
 * leave a row alone, or throws to roll everything back.
 */
export async function changeChannels(
  context: ChannelsContext,
  where: Where,
  change: (row: ChannelEntity) => ChannelChange | null,
  actor?: ChannelActor,
): Promise<ChannelEntity[]> {
  const { db } = context;
  const previous = new Map<number, ChannelEntity>();
  const changed = await db.transaction(async (manager) => {
    const rows = await manager.find(ChannelEntity, {
      where,
      order: { id: 'ASC' },
      ...(isPostgres(db) ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    const out: ChannelEntity[] = [];
    for (const row of rows) {
      const before = Object.assign(new ChannelEntity(), row);
      const changes = change(row);
      if (!changes) continue;
      const next = Object.assign(new ChannelEntity(), row, changes, { version: row.version + 1 });
      await manager.update(ChannelEntity, { id: row.id }, { ...changes, version: next.version });
      await replaceAbilities(manager, next);
      previous.set(row.id, before);
      out.push(next);
    }
    return out;
  });
  await publishUpdated(context, changed);
  await publishChannelAudit(
    context,
    actor,
    ...changed.map((row) => ({
      action: 'channel.updated' as const,
      target: channelTarget(row),
      before: auditedChannel(previous.get(row.id)!),
      after: auditedChannel(row),
    })),
  );
  return changed;
}

/** Deletes the channels `where` selects with their abilities (an admin's deletes audited); returns the ids deleted. */
export async function deleteChannels(context: ChannelsContext, where: Where, actor?: ChannelActor): Promise<number[]> {
  const deleted = await context.db.transaction(async (manager) => {
    const rows = await manager.find(ChannelEntity, { where, order: { id: 'ASC' } });
    await deleteByIds(
      manager,
      rows.map((row) => row.id),
    );
    return rows;
  });
  const ids = deleted.map((row) => row.id);
  await publishDeleted(context, ids);
  await publishChannelAudit(
    context,
    actor,
    ...deleted.map((row) => ({ action: 'channel.deleted' as const, target: channelTarget(row), before: auditedChannel(row), after: null })),
  );
  return ids;
}

async function deleteByIds(manager: EntityManager, ids: number[]): Promise<void> {
  // Chunks keep the IN lists short on both databases.
  for (let start = 0; start < ids.length; start += 500) {
    const chunk = ids.slice(start, start + 500);
    await manager.createQueryBuilder().delete().from(AbilityEntity).where('channel_id IN (:...chunk)', { chunk }).execute();
    await manager.delete(ChannelEntity, { id: In(chunk) });
  }
}

export async function getChannel(context: ChannelsContext, id: number): Promise<ChannelEntity> {
  const row = await context.db.getRepository(ChannelEntity).findOneBy({ id });
  if (!row) throw notFound();
  return row;
}

function listOrThrow(field: 'group' | 'models', text: string): string {
  const result = normaliseList(field, text);
  if (!result.ok) throw new UserError(result.message);
  return result.value;
}

function checkMaps(body: { model_mapping?: string; status_code_mapping?: string }): void {
  for (const field of ['model_mapping', 'status_code_mapping'] as const) {
    const problem = body[field] === undefined ? null : checkStringMap(field, body[field]);
    if (problem) throw new UserError(problem);
  }
}

/** The keys of a key text, each in its type's format (the batch line named), at most MAX_BATCH_KEYS. */
function checkedKeys(type: number, other: string, text: string): string[] {
  const keys = splitKeys(text);
  if (keys.length === 0) throw new UserError(msg('channel_key.required'));
  if (keys.length > MAX_BATCH_KEYS) throw new UserError(msg('channel_key.too_many_lines', { max: String(MAX_BATCH_KEYS) }));
  keys.forEach((one, index) => {
    const problem = keyProblem(type, one, other);
    if (problem) throw new UserError(keys.length > 1 ? `${problem} ${msg('channel_key.line', { line: String(index + 1) })}` : problem);
  });
  return keys;
}

/** The sealed key columns of a key text. */
function sealedKey(context: ChannelsContext, text: string): Pick<ChannelEntity, 'key_encrypted' | 'key_hash'> {
  return { key_encrypted: sealSecret(text, context.keySecret), key_hash: hashKey(text) };
}

/**
 * Creates one channel per key line (batch create), or with `multi_key_mode` one channel holding
 * every key, in one transaction; returns the new ids. A channel created without the
 * private-network flag takes root's AllowPrivateNetworkUpstreams.
 */
export async function createChannels(context: ChannelsContext, body: CreateChannelBody, actor: ChannelActor): Promise<number[]> {
  const { key, multi_key_mode: multiKeyMode, ...fields } = body;
  const keys = checkedKeys(fields.type, fields.other, key);
  checkMaps(fields);
  const common = {
    ...fields,
    rate_limits: storedRateLimits(fields.rate_limits),
    group: listOrThrow('group', fields.group),
    models: listOrThrow('models', fields.models),
    created_time: nowSeconds(),
    allow_private_network: fields.allow_private_network ?? context.options.get('AllowPrivateNetworkUpstreams'),
  };
  // Each entry: the key text of one channel and its channel_info.
  const channels =
    multiKeyMode && keys.length > 1
      ? [{ text: joinKeys(keys), info: withKeyStates('', { mode: multiKeyMode, size: keys.length, off: new Map() }) }]
      : keys.map((one) => ({ text: one, info: '' }));
  const created = await context.db.transaction(async (manager) => {
    const rows: ChannelEntity[] = [];
    for (const { text, info } of channels) {
      const row = manager.create(ChannelEntity, { ...common, ...sealedKey(context, text), other_info: '', channel_info: info, version: 1 });
      // A copy goes in: on PostgreSQL the insert writes RETURNING values (bigints as strings) back into its argument.
      row.id = (await manager.insert(ChannelEntity, { ...row })).identifiers[0]!.id as number;
      const stored = await manager.findOneByOrFail(ChannelEntity, { id: row.id });
      await replaceAbilities(manager, stored);
      rows.push(stored);
    }
    return rows;
  });
  await publishUpdated(context, created);
  await publishChannelAudit(
    context,
    actor,
    ...created.map((row) => ({ action: 'channel.created' as const, target: channelTarget(row), after: auditedChannel(row) })),
  );
  for (const row of created) if (row.allow_private_network) await auditPrivateNetwork(context, actor, row, true, 'created');
  return created.map((row) => row.id);
}

/**
 * A partial edit: absent fields keep their value, an empty or absent key keeps the stored one.
 * Status is 1 or 2 by hand; a 3 is accepted only when it is already the status (the console
 * sends the displayed status back with a full edit).
 */
export async function updateChannel(context: ChannelsContext, body: UpdateChannelBody, actor: ChannelActor): Promise<ChannelEntity> {
  const { id, key, status, multi_key_mode: multiKeyMode, key_mode: keyMode, ...fields } = body;
  checkMaps(fields);
  const common: ChannelChange = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  if (fields.group !== undefined) common.group = listOrThrow('group', fields.group);
  if (fields.models !== undefined) common.models = listOrThrow('models', fields.models);
  if (fields.rate_limits !== undefined) common.rate_limits = storedRateLimits(fields.rate_limits);
  let flagBefore = false as boolean;
  const [row] = await changeChannels(
    context,
    { id },
    (current) => {
      flagBefore = current.allow_private_network === true;
      const changes = { ...common, ...keyChanges(context, current, { key, multiKeyMode, keyMode, type: fields.type, other: fields.other }) };
      if (status === undefined || status === current.status) return changes;
      if (status !== ChannelStatus.Enabled && status !== ChannelStatus.ManuallyDisabled)
        throw new UserError(`status: ${msg('validation.enabled_or_disabled')}`);
      // The reason describes an automatic disable; a hand-set status replaces it.
      return { ...changes, status, other_info: withStatusReason(current.other_info, null, nowSeconds()) };
    },
    actor,
  );
  if (!row) throw notFound();
  if (fields.allow_private_network !== undefined && fields.allow_private_network !== flagBefore) {
    await auditPrivateNetwork(context, actor, row, fields.allow_private_network, 'changed');
  }
  return row;
}

/**
 * What a key edit changes: a new key (or keys) sealed, and for a channel with many keys its key
 * states: a replacement starts every key enabled, an append keeps the old keys' states;
 * `multi_key_mode` sets how keys are picked (and makes a channel given several keys hold them
 * all). Several keys for a channel with one key and no mode are refused: which one was meant?
 */
function keyChanges(
  context: ChannelsContext,
  current: ChannelEntity,
  edit: { key?: string; multiKeyMode?: MultiKeyMode; keyMode?: 'replace' | 'append'; type?: number; other?: string },
): ChannelChange {
  const states = keyStates(current.channel_info);
  const mode = edit.multiKeyMode ?? states?.mode;
  if (!edit.key) return states && mode !== states.mode ? { channel_info: withKeyStates(current.channel_info, { ...states, mode: mode! }) } : {};
  const given = checkedKeys(edit.type ?? current.type, edit.other ?? current.other, edit.key);
  if (!mode) {
    if (given.length > 1) throw new UserError(msg('multi_key.mode_required'));
    return sealedKey(context, given[0]!);
  }
  const appended = edit.keyMode === 'append' && states !== null;
  const keys = appended ? [...new Set([...splitKeys(channelKey(context, current)), ...given])] : given;
  if (keys.length > MAX_BATCH_KEYS) throw new UserError(msg('multi_key.too_many', { max: String(MAX_BATCH_KEYS) }));
  const next: KeyStates = appended ? reindexed({ ...states, mode }, keys.length) : { mode, size: keys.length, off: new Map() };
  return { ...sealedKey(context, joinKeys(keys)), channel_info: withKeyStates(current.channel_info, next) };
}

export interface CopyOptions {
  suffix: string;
  /** Zero the copy's balance and used quota (the default). */
  resetBalance: boolean;
}

/**
 * Copies a channel under a suffixed name: key, settings and status included (a copy of a
 * disabled channel starts disabled); test results start empty. Returns the copy's id.
 */
export async function copyChannel(context: ChannelsContext, id: number, options: CopyOptions, actor: ChannelActor): Promise<number> {
  const copy = await context.db.transaction(async (manager) => {
    const source = await manager.findOneBy(ChannelEntity, { id });
    if (!source) throw notFound();
    const { id: _sourceId, ...fields } = source;
    const values = {
      ...fields,
      name: copyName(source.name, options.suffix),
      created_time: nowSeconds(),
      version: 1,
      response_time: 0,
      test_time: 0,
      ...(options.resetBalance ? { balance: 0, balance_updated_time: 0, used_quota: 0 } : {}),
    };
    const newId = (await manager.insert(ChannelEntity, { ...values })).identifiers[0]!.id as number;
    const stored = await manager.findOneByOrFail(ChannelEntity, { id: newId });
    await replaceAbilities(manager, stored);
    return stored;
  });
  await publishUpdated(context, [copy]);
  await publishChannelAudit(context, actor, { action: 'channel.created', target: channelTarget(copy), after: { ...auditedChannel(copy), copied_from: id } });
  if (copy.allow_private_network) await auditPrivateNetwork(context, actor, copy, true, 'copied');
  return copy.id;
}

export async function deleteChannel(context: ChannelsContext, id: number, actor?: ChannelActor): Promise<void> {
  if ((await deleteChannels(context, { id }, actor)).length === 0) throw notFound();
}

/** Status by hand for every channel with the tag; returns how many changed. */
export async function setStatusByTag(context: ChannelsContext, tag: string, status: 1 | 2, actor?: ChannelActor): Promise<number> {
  const now = nowSeconds();
  const changed = await changeChannels(
    context,
    { tag },
    (row) => (row.status === status ? null : { status, other_info: withStatusReason(row.other_info, null, now) }),
    actor,
  );
  return changed.length;
}

/** Applies a tag edit to every channel with the tag; empty fields mean no change. Returns how many channels changed. */
export async function editTag(context: ChannelsContext, edit: TagEditBody, actor?: ChannelActor): Promise<number> {
  const changes: ChannelChange = {};
  if (edit.new_tag !== undefined && edit.new_tag !== edit.tag) changes.tag = edit.new_tag;
  if (edit.model_mapping) {
    checkMaps({ model_mapping: edit.model_mapping });
    changes.model_mapping = edit.model_mapping;
  }
  if (edit.groups) changes.group = listOrThrow('group', edit.groups);
  if (edit.models) changes.models = listOrThrow('models', edit.models);
  if (edit.priority !== undefined) changes.priority = edit.priority;
  if (edit.weight !== undefined) changes.weight = edit.weight;
  if (Object.keys(changes).length === 0) throw new UserError(msg('channels.tag_no_change'));
  return (await changeChannels(context, { tag: edit.tag }, () => changes, actor)).length;
}

/** Sets the tag of the given channels; returns how many exist. */
export async function setTag(context: ChannelsContext, ids: number[], tag: string, actor?: ChannelActor): Promise<number> {
  return (await changeChannels(context, { id: In(ids) }, () => ({ tag }), actor)).length;
}

/** Records a test's response time (not a routing fact: no new version, no event). */
export async function recordTest(context: ChannelsContext, id: number, responseTimeMs: number): Promise<void> {
  await context.db.getRepository(ChannelEntity).update({ id }, { response_time: Math.max(0, Math.round(responseTimeMs)), test_time: nowSeconds() });
}

export async function recordBalance(context: ChannelsContext, id: number, balance: number): Promise<void> {
  await context.db.getRepository(ChannelEntity).update({ id }, { balance, balance_updated_time: nowSeconds() });
}

/**
 * Channels from before the private-network flag (null) take root's AllowPrivateNetworkUpstreams
 * as it is now: the switch they obeyed until then, so an upgrade changes nothing a channel can
 * reach. Run at start; idempotent across replicas (only null rows change); published and
 * audit-logged.
 */
export async function adoptPrivateNetworkDefault(context: ChannelsContext): Promise<void> {
  if (!(await context.db.getRepository(ChannelEntity).existsBy({ allow_private_network: IsNull() }))) return;
  const allowed = context.options.get('AllowPrivateNetworkUpstreams');
  const adopted = await changeChannels(context, { allow_private_network: IsNull() }, (row) =>
    row.allow_private_network === null ? { allow_private_network: allowed } : null,
  );
  if (allowed) for (const row of adopted) await auditPrivateNetwork(context, null, row, true, 'adopted');
}
