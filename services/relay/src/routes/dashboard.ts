import type { FastifyPluginAsync } from 'fastify';
import { requestTyped } from '@aigw/platform';
import type { RelayContext } from '../context.js';
import { callerOf, requireApiKey } from '../caller.js';
import { RelayError } from '../errors.js';

/** What an unlimited key shows as its limit: a figure no one reaches, as the established product shows. */
export const UNLIMITED_LIMIT = 100_000_000;

/**
 * The OpenAI-style billing dashboards chat clients read with their key (docs/compatibility.md
 * section 2.3): `/dashboard/billing/subscription` (the limit) and `/dashboard/billing/usage` (what
 * was used, in cents), also under `/v1`. With DisplayTokenStatEnabled they describe the key (its
 * remaining plus used quota), otherwise its owner (balance plus used); with
 * DisplayInCurrencyEnabled the figures are money (quota / QuotaPerUnit), otherwise raw quota.
 * An unlimited key's limit is UNLIMITED_LIMIT whatever the unit. Not the hot path: the figures are
 * billing's committed ones, asked for each call.
 */
export const dashboardRoutes: FastifyPluginAsync<{ context: RelayContext }> = async (app, { context }) => {
  const { options } = context;
  const keyed = { config: { access: 'public' as const }, onRequest: requireApiKey(context.tokens) };

  const figures = async (request: Parameters<typeof callerOf>[0]) => {
    const caller = callerOf(request);
    const answer = await requestTyped(context.bus, 'billing.token.figures', { token_id: caller.tokenId, user_id: caller.userId }, { timeoutMs: 5_000 });
    const { token, account } = answer;
    if (!token || !account) throw new RelayError(401, 'the API key is no longer valid', 'invalid_api_key', 'invalid_request_error');
    const perUnit = options.get('DisplayInCurrencyEnabled') ? options.get('QuotaPerUnit') : 1;
    const byToken = options.get('DisplayTokenStatEnabled');
    const used = (byToken ? token.used_quota : account.used_quota) / perUnit;
    const total =
      byToken && token.unlimited_quota ? UNLIMITED_LIMIT : (byToken ? token.remain_quota + token.used_quota : account.quota + account.used_quota) / perUnit;
    return { used, total, accessUntil: token.expired_time > 0 ? token.expired_time : 0 };
  };

  for (const prefix of ['', '/v1']) {
    app.get(`${prefix}/dashboard/billing/subscription`, keyed, async (request) => {
      const { total, accessUntil } = await figures(request);
      return {
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: total,
        hard_limit_usd: total,
        system_hard_limit_usd: total,
        access_until: accessUntil,
      };
    });

    app.get(`${prefix}/dashboard/billing/usage`, keyed, async (request) => {
      const { used } = await figures(request);
      // OpenAI's usage endpoint answers in cents.
      return { object: 'list', total_usage: Math.round(used * 100 * 100) / 100 };
    });
  }
};
