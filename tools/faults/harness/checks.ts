import { In } from 'typeorm';
import { counterKeys, holdKey } from '@aigw/platform';
import { AccountEntity, LogEntity, PendingRequestEntity, TokenEntity } from '../../../services/billing/src/entities/index';
import { reconcile } from '../../../services/billing/src/reconcile';
import type { SentRequest } from './load';
import type { FaultUser, World } from './world';

/**
 * The invariants every scenario ends with (docs/reliability.md, docs/architecture.md 5.4): once the
 * system settles, every balance reconciles with the ledger; every request that reached the
 * upstream has exactly one usage record and none has two; no balance or key quota is below zero;
 * no hold is left open and what is spendable equals the database balance; refused requests cost
 * nothing. Plus how long requests took to succeed again after the fault was healed.
 */
export interface ScenarioResult {
  scenario: string;
  topology: World['topology'];
  sent: number;
  succeeded: number;
  /** Answered with an error status (refused before or after an upstream call). */
  refused: number;
  /** No answer at all (the connection was reset by a killed process) or the client left on purpose. */
  cut: number;
  /** Distinct requests the mock upstream received. */
  reachedUpstream: number;
  /** Usage records (log rows) of the scenario's users. */
  recorded: number;
  lost: number;
  doubled: number;
  /** Balances and key quotas below zero. */
  negative: number;
  openHolds: number;
  /** Quota charged to requests the client saw refused (an error status before any answer). */
  refusedCharged: number;
  /** Accounts whose balance does not match the ledger. */
  unreconciled: number;
  /** From the fault's heal until the first request started after it succeeded (null: none did). */
  recoverySeconds: number | null;
  /** How long the checks waited for the system to settle. */
  settleSeconds: number;
}

const MARKER = /fault-[0-9a-f]{16}/;

/**
 * The request ids of `rows` that may stand for an upstream call: all but the records, with
 * nothing charged, of requests the client sent whose call never reached the upstream (the
 * sweeper records a hold its stopped relay left before any upstream call). Those neither cover
 * an upstream call (lost) nor double one.
 */
function forwarded(rows: LogEntity[], sent: SentRequest[], upstream: Set<string>): Set<string | null> {
  const notReached = new Set(sent.filter((request) => request.requestId && !upstream.has(request.marker)).map((request) => request.requestId!));
  return new Set(rows.filter((row) => !(row.quota === 0 && row.request_id !== null && notReached.has(row.request_id))).map((row) => row.request_id));
}

/** Distinct markers of `sent` that reached the mock upstream (a retry on another channel counts once). */
function reachedUpstream(world: World, sent: SentRequest[]): Set<string> {
  const ours = new Set(sent.map((request) => request.marker));
  const seen = new Set<string>();
  for (const request of world.mock.requests) {
    const marker = MARKER.exec(JSON.stringify(request.body ?? ''))?.[0];
    if (marker && ours.has(marker)) seen.add(marker);
  }
  return seen;
}

async function openHolds(world: World, userIds: Set<number>): Promise<number> {
  const infra = world.infra;
  if (!infra) return 0;
  let open = 0;
  for (const key of await infra.kv.keys(holdKey(''), 100_000)) {
    const raw = await infra.kv.get(key);
    if (raw !== null && userIds.has((JSON.parse(raw) as { userId: number }).userId)) open += 1;
  }
  for (const userId of userIds) if (((await infra.counters.get(counterKeys.userHeld(userId))) ?? 0) !== 0) open += 1;
  return open;
}

/** Users whose live counter (Redis) is not their database balance: a counter never loaded is fine. */
async function spendableDrift(world: World, accounts: AccountEntity[]): Promise<number> {
  const infra = world.infra;
  if (!infra) return 0;
  let drift = 0;
  for (const account of accounts) {
    const live = await infra.counters.get(counterKeys.user(account.user_id));
    if (live !== null && live !== account.quota) drift += 1;
  }
  return drift;
}

export async function settleAndCheck(
  world: World,
  scenario: string,
  users: FaultUser[],
  sent: SentRequest[],
  healedAt: number,
  boundMs = 120_000,
): Promise<ScenarioResult> {
  const userIds = new Set(users.map((user) => user.id));
  const logs = world.billing.getRepository(LogEntity);
  const started = Date.now();
  const settled = async () => {
    const upstream = reachedUpstream(world, sent);
    const records = forwarded(await logs.findBy({ type: 2, user_id: In([...userIds]) }), sent, upstream).size;
    const pending = await world.billing.getRepository(PendingRequestEntity).countBy({ user_id: In([...userIds]) });
    const accounts = await world.billing.getRepository(AccountEntity).findBy({ user_id: In([...userIds]) });
    return records >= upstream.size && pending === 0 && (await openHolds(world, userIds)) === 0 && (await spendableDrift(world, accounts)) === 0;
  };
  while (!(await settled()) && Date.now() - started < boundMs) await new Promise((resolve) => setTimeout(resolve, 250));
  const settleSeconds = (Date.now() - started) / 1000;

  const upstream = reachedUpstream(world, sent);
  const rows = await logs.findBy({ type: 2, user_id: In([...userIds]) });
  const requestIds = rows.map((row) => row.request_id);
  const duplicates = requestIds.length - new Set(requestIds).size;
  const recordedUpstream = forwarded(rows, sent, upstream);
  const accounts = await world.billing.getRepository(AccountEntity).findBy({ user_id: In([...userIds]) });
  const tokens = await world.billing.getRepository(TokenEntity).findBy({ user_id: In([...userIds]) });
  const refusedIds = new Set(sent.filter((request) => request.status >= 400 && request.requestId).map((request) => request.requestId!));
  const mismatches = await reconcile(world.billing);
  const firstAfterHeal = sent
    .filter((request) => request.startedAt >= healedAt && request.complete)
    .reduce<number | null>((first, request) => (first === null || request.endedAt < first ? request.endedAt : first), null);

  return {
    scenario,
    topology: world.topology,
    sent: sent.length,
    succeeded: sent.filter((request) => request.complete).length,
    refused: sent.filter((request) => request.status >= 400).length,
    cut: sent.filter((request) => !request.complete && request.status < 400).length,
    reachedUpstream: upstream.size,
    recorded: rows.length,
    lost: Math.max(0, upstream.size - recordedUpstream.size),
    doubled: duplicates + Math.max(0, recordedUpstream.size - upstream.size),
    negative: accounts.filter((account) => account.quota < 0).length + tokens.filter((token) => !token.unlimited_quota && token.remain_quota < 0).length,
    openHolds: await openHolds(world, userIds),
    refusedCharged: rows.filter((row) => row.request_id !== null && refusedIds.has(row.request_id)).reduce((sum, row) => sum + row.quota, 0),
    unreconciled: mismatches.filter((mismatch) => userIds.has(mismatch.user_id)).length,
    recoverySeconds: firstAfterHeal === null ? null : Math.max(0, (firstAfterHeal - healedAt) / 1000),
    settleSeconds,
  };
}
