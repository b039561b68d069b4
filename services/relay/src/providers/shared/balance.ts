import type { RoutingChannel } from '@aigw/contracts';
import type { BalanceQuery, UpstreamRequest } from '../types.js';
import { baseUrlOf, versionedUrl } from './url.js';

/** The upstream answered, but not with a balance this query understands. */
export class BalanceUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BalanceUnavailableError';
  }
}

type Base = (channel: RoutingChannel) => string;
const get = (url: string, key: string): UpstreamRequest => ({ method: 'GET', url, headers: { Authorization: `Bearer ${key}` } });
const number = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN);
const cents = (value: number) => Math.round(value * 100) / 100;

/**
 * OpenAI's billing dashboards, which many resellers keep: the subscription's hard limit minus this
 * month's usage (in cents). An upstream without them answers the first call with an error.
 */
export function openAiDashboardBalance(defaultBaseUrl: string | undefined): BalanceQuery {
  const base: Base = (channel) => versionedUrl(baseUrlOf(channel, defaultBaseUrl), '/v1', '');
  return {
    requests({ channel, key }) {
      const now = new Date();
      const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);
      const end = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
      return [
        get(`${base(channel)}/dashboard/billing/subscription`, key),
        get(`${base(channel)}/dashboard/billing/usage?start_date=${start}&end_date=${end}`, key),
      ];
    },
    parse([subscription, usage]) {
      if (!subscription || subscription.statusCode !== 200) throw new BalanceUnavailableError('the upstream has no balance endpoint');
      const limit = number((subscription.data as { hard_limit_usd?: unknown } | null)?.hard_limit_usd);
      if (!Number.isFinite(limit)) throw new BalanceUnavailableError('the upstream balance answer was not understood');
      const used = usage?.statusCode === 200 ? number((usage.data as { total_usage?: unknown } | null)?.total_usage) / 100 : 0;
      return cents(limit - (Number.isFinite(used) ? used : 0));
    },
  };
}

/** One GET whose answer holds the balance at `read(json)`. */
function single(path: string, defaultBaseUrl: string | undefined, read: (json: unknown) => number): BalanceQuery {
  return {
    requests: ({ channel, key }) => [get(`${baseUrlOf(channel, defaultBaseUrl)}${path}`, key)],
    parse([answer]) {
      if (!answer || answer.statusCode !== 200) throw new BalanceUnavailableError(`the upstream answered HTTP ${answer?.statusCode ?? 0} to its balance query`);
      const balance = read(answer.data);
      if (!Number.isFinite(balance)) throw new BalanceUnavailableError('the upstream balance answer was not understood');
      return cents(balance);
    },
  };
}

/** SiliconFlow: `GET /v1/user/info`, `data.totalBalance` (a decimal string). */
export const siliconFlowBalance = (defaultBaseUrl: string | undefined) =>
  single('/v1/user/info', defaultBaseUrl, (json) => number((json as { data?: { totalBalance?: unknown } } | null)?.data?.totalBalance));

/** DeepSeek: `GET /user/balance`, the first `balance_infos[].total_balance` (a decimal string, in its currency). */
export const deepSeekBalance = (defaultBaseUrl: string | undefined) =>
  single('/user/balance', defaultBaseUrl, (json) =>
    number((json as { balance_infos?: Array<{ total_balance?: unknown }> } | null)?.balance_infos?.[0]?.total_balance),
  );

/** OpenRouter: `GET {base}/v1/credits` (its base is `https://openrouter.ai/api`), `data.total_credits - data.total_usage` (dollars). */
export const openRouterBalance = (defaultBaseUrl: string | undefined) =>
  single('/v1/credits', defaultBaseUrl, (json) => {
    const data = (json as { data?: { total_credits?: unknown; total_usage?: unknown } } | null)?.data;
    return number(data?.total_credits) - number(data?.total_usage);
  });
