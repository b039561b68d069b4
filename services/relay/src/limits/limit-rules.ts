import { rateLimitFields, type GroupRateLimits, type ModelRateLimits, type RateLimitField, type RateLimits } from '@aigw/contracts';
import type { LimitLine } from '@aigw/platform';

/**
 * Which usage limits apply to a request, as Counters lines (docs/architecture.md section 5.9).
 * Pure: the settings in, the lines out, one `LimitRule` per line saying what it limits, so the
 * gate can name a refusal and fill the headers. Scopes:
 *   - the API key: its own limits;
 *   - the user: field by field the user's own, else the group's (GroupRateLimits), else the
 *     default (DefaultUserRateLimits);
 *   - the model, all use together (ModelRateLimits), and the model within the caller's group
 *     (its `groups`);
 *   - the established product's per-user request limit (ModelRequestRateLimit*): requests, and
 *     successful requests, per its window of minutes;
 *   - a channel: its own limits, checked when routing picks it (a channel at its limit is skipped).
 */

export type LimitScope = 'key' | 'user' | 'model' | 'group_model' | 'user_requests' | 'channel';

/** What a line limits: the scope, the measure and window, and the limit's amount. */
export interface LimitRule {
  scope: LimitScope;
  /** rpm, rpd, tpm, tpd, concurrency; `success` for the established product's successful-request count. */
  field: RateLimitField | 'success';
  limit: number;
  /** The window in ms (0: concurrency). */
  windowMs: number;
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

const windowOf: Record<Exclude<RateLimitField, 'concurrency'>, number> = { rpm: MINUTE_MS, rpd: DAY_MS, tpm: MINUTE_MS, tpd: DAY_MS };
const isTokens = (field: RateLimitField) => field === 'tpm' || field === 'tpd';

/** The settings the rules read (options mirror values and the caller's own sets). */
export interface LimitSettings {
  defaultUser: RateLimits;
  groups: GroupRateLimits;
  models: ModelRateLimits;
  /** ModelRequestRateLimit*: off when `enabled` is false. */
  userRequests: { enabled: boolean; minutes: number; count: number; success: number; groups: Record<string, [number, number]> };
}

export interface LimitSubject {
  tokenId: number;
  userId: number;
  group: string;
  model: string;
  tokenLimits: RateLimits;
  userLimits: RateLimits;
  /** The key's custom refusal text ('' or absent: the default). */
  rateLimitMessage?: string;
}

export interface PlannedLines {
  lines: LimitLine[];
  rules: LimitRule[];
  /** What a refusal by one of the key's own lines says instead of the default text (the token's `rate_limit_message`). */
  keyMessage?: string;
}

/**
 * The effective limits of a user: each field from the user's own set when set (above 0), else the
 * group's, else the default's.
 */
export function userLimitsOf(subject: Pick<LimitSubject, 'group' | 'userLimits'>, settings: Pick<LimitSettings, 'defaultUser' | 'groups'>): RateLimits {
  const group = settings.groups[subject.group] ?? {};
  const merged: RateLimits = {};
  for (const field of rateLimitFields) {
    const amount = subject.userLimits[field] || group[field] || settings.defaultUser[field] || 0;
    if (amount > 0) merged[field] = amount;
  }
  return merged;
}

/**
 * The lines of one limit set under `key`: a window line per rate (requests need 1; tokens need
 * the request's hold, capped at the limit so a request alone always fits an empty window and is
 * settled with its actual usage), a slots line for concurrency.
 */
export function linesOf(
  into: PlannedLines,
  scope: LimitScope,
  key: string,
  limits: RateLimits,
  request: { id: string; tokens: number; slotTtlMs: number },
): void {
  for (const field of rateLimitFields) {
    const limit = limits[field] ?? 0;
    if (limit <= 0) continue;
    if (field === 'concurrency') {
      into.lines.push({ kind: 'slots', key: `${key}:concurrency`, limit, member: request.id, ttlMs: request.slotTtlMs });
      into.rules.push({ scope, field, limit, windowMs: 0 });
      continue;
    }
    const cost = isTokens(field) ? Math.max(1, Math.min(request.tokens, limit)) : 1;
    into.lines.push({ kind: 'window', key: `${key}:${field}`, windowMs: windowOf[field], limit, need: cost, add: cost });
    into.rules.push({ scope, field, limit, windowMs: windowOf[field] });
  }
}

/** Every limit of a request but its channel's (those are checked as routing picks a channel). */
export function requestLines(subject: LimitSubject, settings: LimitSettings, request: { id: string; tokens: number; slotTtlMs: number }): PlannedLines {
  const planned: PlannedLines = { lines: [], rules: [] };
  if (subject.tokenId > 0) linesOf(planned, 'key', `limit:key:${subject.tokenId}`, subject.tokenLimits, request);
  if (subject.tokenId > 0 && subject.rateLimitMessage) planned.keyMessage = subject.rateLimitMessage;
  linesOf(planned, 'user', `limit:user:${subject.userId}`, userLimitsOf(subject, settings), request);
  const model = settings.models[subject.model];
  if (model) {
    const { groups, ...all } = model;
    linesOf(planned, 'model', `limit:model:${subject.model}`, all, request);
    const inGroup = groups?.[subject.group];
    if (inGroup) linesOf(planned, 'group_model', `limit:model:${subject.model}:group:${subject.group}`, inGroup, request);
  }
  userRequestLines(planned, subject, settings.userRequests);
  return planned;
}

/**
 * The established product's per-user request limit: at most `count` requests and `success`
 * successful ones per window of `minutes` (a group's pair over the two). The success count is
 * checked here (need 1, nothing added) and counted when a request succeeds.
 */
function userRequestLines(into: PlannedLines, subject: LimitSubject, options: LimitSettings['userRequests']): void {
  if (!options.enabled) return;
  const [count, success] = options.groups[subject.group] ?? [options.count, options.success];
  const windowMs = options.minutes * MINUTE_MS;
  const key = `limit:user-requests:${subject.userId}:${options.minutes}`;
  if (count > 0) {
    into.lines.push({ kind: 'window', key: `${key}:total`, windowMs, limit: count, need: 1, add: 1 });
    into.rules.push({ scope: 'user_requests', field: 'rpm', limit: count, windowMs });
  }
  if (success > 0) {
    into.lines.push({ kind: 'window', key: `${key}:success`, windowMs, limit: success, need: 1, add: 0 });
    into.rules.push({ scope: 'user_requests', field: 'success', limit: success, windowMs });
  }
}

/** A channel's lines, for routing. */
export function channelLines(channelId: number, limits: RateLimits, request: { id: string; tokens: number; slotTtlMs: number }): PlannedLines {
  const planned: PlannedLines = { lines: [], rules: [] };
  linesOf(planned, 'channel', `limit:channel:${channelId}`, limits, request);
  return planned;
}
