// The balance queries of OpenAI-compatible upstreams that have their own (README.md "Balances"):
// SiliconFlow's user info, DeepSeek's balance and OpenRouter's credits, each reporting the
// server's `billing` (live `mock.billing`): hard limit minus usage, as OpenAI's dashboards do.
// The key is checked by the server, as Bearer.

/** The balance the instance reports, in dollars (`hard-limit` / `total-usage` options win). */
function balanceOf(options, billing) {
  const limit = options.hardLimit >= 0 ? options.hardLimit : billing.hardLimitUsd;
  const usedCents = options.totalUsage >= 0 ? options.totalUsage : billing.totalUsage;
  return { limit, used: usedCents / 100 };
}

export const balanceRoutes = {
  match(method, path) {
    if (method !== 'GET') return undefined;
    if (path === '/v1/user/info') return 'balance.siliconflow';
    if (path === '/user/balance') return 'balance.deepseek';
    if (path === '/v1/credits' || path === '/api/v1/credits') return 'balance.openrouter';
    return undefined;
  },

  respond(req, res, { kind, options, billing, send }) {
    if (options.nobilling) return send.error(404, `mock upstream: no route for ${req.method} ${req.url}`);
    const { limit, used } = balanceOf(options, billing);
    const balance = (limit - used).toFixed(2);
    if (kind === 'balance.siliconflow') {
      return send.json(
        200,
        JSON.stringify({ code: 20000, message: 'OK', status: true, data: { id: 'mock', balance, chargeBalance: '0', totalBalance: balance } }),
      );
    }
    if (kind === 'balance.deepseek') {
      return send.json(
        200,
        JSON.stringify({
          is_available: true,
          balance_infos: [{ currency: 'CNY', total_balance: balance, granted_balance: '0.00', topped_up_balance: balance }],
        }),
      );
    }
    return send.json(200, JSON.stringify({ data: { total_credits: limit, total_usage: used } }));
  },
};
