import { In } from 'typeorm';
import { ChannelStatus, JobName, localizeMessage, msg, type MessageId, type ResponsePayload, type RoutingChannel } from '@aigw/contracts';
import { BusRequestError, recordedJob, requestTyped, scrubSecrets, UserError } from '@aigw/platform';
import { channelKey } from './stored-key.js';
import { keysToSweep, keyToTest } from './multi-keys.js';
import type { ChannelsContext } from './context.js';
import { ChannelEntity } from './entities/index.js';
import { getChannel, recordBalance, recordTest } from './channels.js';
import { applyFailure, applySuccess } from './health.js';
import { slowTestFailure } from './domain/auto-disable.js';
import { splitList, toRoutingRow } from './domain/channel-fields.js';
import { auditPrivateNetwork, type ChannelActor } from './private-network.js';

/**
 * Tests, balances and upstream model lists. The relay owns provider protocols and egress (rule R1),
 * so channels hands it the channel and its key by request (`relay.channel.operate`) and acts on
 * the answer: records times and balances, and applies the auto-disable/enable rules.
 */

type Operation = 'test' | 'models' | 'balance';
type OperateAnswer = ResponsePayload<'relay.channel.operate'>;

/** An upstream may be slow; the relay applies its own upstream timeout inside this. */
const OPERATE_TIMEOUT_MS = 60_000;

export const TEST_ALL_JOB = JobName.ChannelsTestAll;
export const BALANCE_ALL_JOB = JobName.ChannelsBalanceAll;

async function operate(context: ChannelsContext, operation: Operation, channel: RoutingChannel, key: string, model = ''): Promise<OperateAnswer> {
  try {
    return await requestTyped(context.bus, 'relay.channel.operate', { operation, channel, key, model }, { timeoutMs: OPERATE_TIMEOUT_MS });
  } catch (error) {
    if (!(error instanceof BusRequestError)) throw error;
    context.logger.warn({ err: error, operation, channelId: channel.id }, 'the relay did not carry out a channel operation');
    // Our own trouble, not the channel's: it must not count against the channel.
    throw new UserError(error.reason === 'remote-error' ? quoting('channels.relay_error', error.message) : msg('channels.relay_no_answer'));
  }
}

/**
 * Our message, then what the relay or the upstream said, quoted as it said it (secret-looking
 * parts masked). The quote follows the message rather than filling a parameter: the relay's own
 * refusals are messages too (an egress block), worded in the caller's language where they stand.
 */
const quoting = (id: MessageId, said: string) => `${msg(id)}: ${scrubSecrets(said)}`;

export interface TestResult {
  success: boolean;
  message: string;
  /** Seconds. */
  time: number;
}

/**
 * Tests one channel with `model` (else its test model, else its first model), records the
 * time, and applies the rules: a failure or a test slower than ChannelDisableThreshold may
 * disable it; a passing test may enable an automatically disabled one. A channel with many keys
 * is tested with the key `keyIndex` (else its first live one), and the rules apply to that key.
 */
export async function testChannel(context: ChannelsContext, id: number, model = '', keyIndex?: number): Promise<TestResult> {
  return testRow(context, await getChannel(context, id), model, keyIndex);
}

async function testRow(context: ChannelsContext, row: ChannelEntity, model: string, keyIndex?: number): Promise<TestResult> {
  const { id } = row;
  const chosen = model || row.test_model || splitList(row.models)[0] || '';
  const tested = keyToTest(context, row, keyIndex);
  const onKey = tested.keyIndex === undefined ? {} : { key_index: tested.keyIndex };
  const started = Date.now();
  const answer = await operate(context, 'test', toRoutingRow(row), tested.key, chosen);
  const elapsedMs = answer.response_time_ms > 0 ? answer.response_time_ms : Date.now() - started;
  await recordTest(context, id, elapsedMs);
  const time = elapsedMs / 1000;
  if (!answer.ok) {
    await applyFailure(context, id, { status_code: answer.status_code, error_code: '', error_type: '', message: answer.message, test: true, ...onKey });
    const message = answer.message
      ? quoting('channels.test_failed', answer.message)
      : msg('channels.test_failed_status', { status: String(answer.status_code) });
    return { success: false, message, time };
  }
  const threshold = context.options.get('ChannelDisableThreshold');
  const slow = slowTestFailure(elapsedMs, threshold);
  if (slow) {
    await applyFailure(context, id, { ...slow, ...onKey });
    return { success: false, message: msg('channels.test_slow', { time: time.toFixed(2), threshold: String(threshold) }), time };
  }
  await applySuccess(context, id, tested.keyIndex);
  return { success: true, message: '', time };
}

/**
 * A sweep's test of one channel: a channel with many keys has each of its keys tested (but those
 * an admin disabled), so a key disabled automatically comes back when it works again; the
 * channel's result is its last failure, or success when every key passed.
 */
async function sweepTest(context: ChannelsContext, id: number): Promise<TestResult> {
  const row = await getChannel(context, id);
  const keys = keysToSweep(row);
  if (!keys) return testRow(context, row, '');
  let result: TestResult = { success: true, message: '', time: 0 };
  for (const keyIndex of keys) {
    const tested = await testRow(context, await getChannel(context, id), '', keyIndex);
    result = tested.success ? { ...result, time: tested.time } : tested;
  }
  return result;
}

/** Every channel a sweep covers (enabled ones, and automatically disabled ones a pass may enable), with its status now. */
async function sweepRows(context: ChannelsContext, statuses: number[]): Promise<Array<{ id: number; status: number }>> {
  return context.db.getRepository(ChannelEntity).find({ where: { status: In(statuses) }, select: { id: true, status: true }, order: { id: 'ASC' } });
}

interface SweepTally<T> {
  results: Map<number, T>;
  /** Channels the sweep could not handle (the relay did not answer, the key does not decrypt, ...), with the first reason. */
  errors: number;
  firstError: string;
}

/** One channel's trouble must not end the sweep: it is logged, counted, and the next one goes. */
async function sweep<T>(context: ChannelsContext, what: string, ids: number[], each: (id: number) => Promise<T>): Promise<SweepTally<T>> {
  const tally: SweepTally<T> = { results: new Map(), errors: 0, firstError: '' };
  for (const id of ids) {
    try {
      tally.results.set(id, await each(id));
    } catch (error) {
      context.logger.warn({ err: error, channelId: id }, `${what}: channel skipped`);
      tally.errors += 1;
      // Recorded in the job's summary: in English, as the rest of it.
      tally.firstError ||= localizeMessage(error instanceof Error ? error.message : String(error), 'en-US');
    }
  }
  return tally;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

export async function updateBalance(context: ChannelsContext, id: number): Promise<number> {
  const row = await getChannel(context, id);
  const answer = await operate(context, 'balance', toRoutingRow(row), channelKey(context, row));
  if (!answer.ok || answer.balance === null)
    throw new UserError(answer.message ? quoting('channels.balance_failed', answer.message) : msg('channels.balance_missing'));
  // Balance never disables a channel: auto-ban applies to request failures only (complaint 2,
  // docs/compatibility.md section 7).
  await recordBalance(context, id, answer.balance);
  return answer.balance;
}

/** The upstream's model list for a stored channel. */
export async function fetchModels(context: ChannelsContext, id: number): Promise<string[]> {
  const row = await getChannel(context, id);
  return modelsFrom(await operate(context, 'models', toRoutingRow(row), channelKey(context, row)));
}

/**
 * The upstream's model list for a channel being filled in (nothing stored yet), with the editor's
 * private-network switch (else what a new channel would take); allowing it is audit-logged.
 */
export async function fetchModelsUnsaved(
  context: ChannelsContext,
  input: { type: number; base_url: string; key: string; allow_private_network?: boolean },
  actor: ChannelActor,
): Promise<string[]> {
  const allowPrivateNetwork = input.allow_private_network ?? context.options.get('AllowPrivateNetworkUpstreams');
  const channel: RoutingChannel = {
    id: 0,
    type: input.type,
    name: '',
    status: ChannelStatus.Enabled,
    groups: [],
    models: [],
    base_url: input.base_url,
    other: '',
    model_mapping: {},
    status_code_mapping: {},
    param_override: {},
    setting: {},
    priority: 0,
    weight: 0,
    tag: '',
    auto_ban: 0,
    openai_organization: '',
    allow_private_network: allowPrivateNetwork,
    multi_key: null,
    rate_limits: {},
    version: 0,
  };
  if (allowPrivateNetwork) await auditPrivateNetwork(context, actor, null, true, 'unsaved');
  // A batch of keys (one per line) shares an upstream: the first one lists its models.
  const key = input.key.trim().split(/\r?\n/)[0]!.trim();
  return modelsFrom(await operate(context, 'models', channel, key));
}

function modelsFrom(answer: OperateAnswer): string[] {
  if (!answer.ok)
    throw new UserError(answer.message ? quoting('models.fetch_failed', answer.message) : msg('models.fetch_refused', { status: String(answer.status_code) }));
  return [...new Set(answer.models)].sort();
}

/** How long a sweep's lock outlives a crashed holder; a live one renews it every third of this. */
const SWEEP_LOCK_TTL_MS = 5 * 60_000;

/** Tests every enabled and automatically disabled channel; the summary counts what changed. */
export async function testAllChannels(context: ChannelsContext): Promise<string> {
  const before = await sweepRows(context, [ChannelStatus.Enabled, ChannelStatus.AutoDisabled]);
  if (before.length === 0) return 'no channels to test'; // not a console message: the job's summary, recorded.
  const ids = before.map((row) => row.id);
  const tally = await sweep(context, 'test all', ids, (id) => sweepTest(context, id));
  // No channel tested at all is the run's failure (typically the relay is away), not the channels'.
  if (tally.errors === ids.length) throw new Error(`${tally.firstError} (no channel tested)`);
  const after = new Map(
    (await context.db.getRepository(ChannelEntity).find({ where: { id: In(ids) }, select: { id: true, status: true } })).map((row) => [row.id, row.status]),
  );
  const changed = (from: number, to: number) => before.filter((row) => row.status === from && after.get(row.id) === to).length;
  const failed = [...tally.results.values()].filter((result) => !result.success).length;
  const parts = [
    `tested ${plural(tally.results.size, 'channel')}`,
    `${failed} failed`,
    `${changed(ChannelStatus.Enabled, ChannelStatus.AutoDisabled)} disabled`,
    `${changed(ChannelStatus.AutoDisabled, ChannelStatus.Enabled)} enabled`,
  ];
  if (tally.errors) parts.push(`${tally.errors} not tested (${tally.firstError})`);
  context.logger.info({ channels: ids.length }, 'all channels tested');
  return parts.join(', ');
}

/** Refreshes the balance of every enabled channel. */
export async function updateAllBalances(context: ChannelsContext): Promise<string> {
  const ids = (await sweepRows(context, [ChannelStatus.Enabled])).map((row) => row.id);
  if (ids.length === 0) return 'no enabled channels'; // not a console message: the job's summary, recorded.
  const tally = await sweep(context, 'update balances', ids, (id) => updateBalance(context, id));
  return `updated ${plural(tally.results.size, 'balance')}${tally.errors ? `, ${tally.errors} failed (${tally.firstError})` : ''}`;
}

/**
 * The background jobs behind "test all" and "update all balances", started by the console
 * buttons (startSweep) and by the schedules (schedules.ts). Each run is recorded and holds a
 * lock shared by the replicas, so a scheduled and a manual run never overlap: the later one is
 * skipped. Two slots per worker make that skip immediate, rather than the later run waiting in
 * this replica's queue and then testing everything again.
 */
export async function registerSweeps(context: ChannelsContext): Promise<void> {
  const recording = { kv: context.kv, logger: context.logger, exclusive: { lockTtlMs: SWEEP_LOCK_TTL_MS } };
  await context.jobs.work(
    TEST_ALL_JOB,
    recordedJob(TEST_ALL_JOB, () => testAllChannels(context), recording),
    { concurrency: 2 },
  );
  await context.jobs.work(
    BALANCE_ALL_JOB,
    recordedJob(BALANCE_ALL_JOB, () => updateAllBalances(context), recording),
    { concurrency: 2 },
  );
}

/** Starts a sweep; one at a time (a second request while one is pending is the same job). */
export async function startSweep(context: ChannelsContext, job: typeof TEST_ALL_JOB | typeof BALANCE_ALL_JOB): Promise<void> {
  // One attempt: a sweep that failed half-way should not retest the channels it already did.
  await context.jobs.add(job, {}, { jobId: job, attempts: 1 });
}
