import { publishEvent } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { matrixGaps, probeRow, registerAdmin, type MatrixRow, type Outcome } from '../../gateway/test/support/authorization-matrix';

type Principal = 'anonymous' | 'userA' | 'userB' | 'admin' | 'root';
/** A row's url and body fill in A's objects. */
type Row = MatrixRow<Principal, Ids>;

interface Ids {
  tokenA: number;
  redemption: number;
}

const personal: Record<Principal, Outcome> = { anonymous: 401, userA: 'ok', userB: 'ok', admin: 'ok', root: 'ok' };
/** A's own object: everyone else, admins included, gets the same 404 as for a missing id. */
const ownedByA: Record<Principal, Outcome> = { anonymous: 401, userA: 'ok', userB: 404, admin: 404, root: 404 };
const adminOnly: Record<Principal, Outcome> = { anonymous: 401, userA: 403, userB: 403, admin: 'ok', root: 'ok' };
const everyone: Record<Principal, Outcome> = { anonymous: 'ok', userA: 'ok', userB: 'ok', admin: 'ok', root: 'ok' };
const rootOnly: Record<Principal, Outcome> = { anonymous: 401, userA: 403, userB: 403, admin: 403, root: 'ok' };

/** Every billing route. A route missing here fails the completeness test (rule R11, test M1). */
const matrix: Row[] = [
  { method: 'GET', route: '/api/token', url: () => '/api/token/?p=0&size=10', expect: personal },
  { method: 'GET', route: '/api/token/search', url: () => '/api/token/search?keyword=a', expect: personal },
  { method: 'GET', route: '/api/token/:id', url: (ids) => `/api/token/${ids.tokenA}`, expect: ownedByA },
  { method: 'POST', route: '/api/token', url: () => '/api/token/', body: () => ({ name: 'matrix', remain_quota: 10 }), expect: personal },
  { method: 'PUT', route: '/api/token', url: () => '/api/token/', body: (ids) => ({ id: ids.tokenA, name: 'renamed' }), expect: ownedByA },
  { method: 'POST', route: '/api/token/:id/key', url: (ids) => `/api/token/${ids.tokenA}/key`, expect: ownedByA },
  { method: 'POST', route: '/api/token/keys', url: () => '/api/token/keys', body: (ids) => ({ ids: [ids.tokenA] }), expect: ownedByA },
  { method: 'DELETE', route: '/api/token/:id', url: (ids) => `/api/token/${ids.tokenA}`, expect: ownedByA },
  { method: 'POST', route: '/api/user/topup', url: () => '/api/user/topup', body: () => ({ key: 'not-a-code' }), expect: personal },
  { method: 'POST', route: '/api/user/amount', url: () => '/api/user/amount', body: () => ({ amount: 10 }), expect: personal },
  { method: 'POST', route: '/api/user/pay', url: () => '/api/user/pay', body: () => ({ amount: 10, payment_method: 'zfb' }), expect: personal },
  { method: 'POST', route: '/api/user/aff_transfer', url: () => '/api/user/aff_transfer', body: () => ({ quota: 500000 }), expect: personal },
  { method: 'GET', route: '/api/user/topup', url: () => '/api/user/topup?p=1', expect: adminOnly },
  {
    method: 'POST',
    route: '/api/user/topup/complete',
    url: () => '/api/user/topup/complete',
    body: () => ({ trade_no: 'USR1NOnone001732600000' }),
    expect: { ...adminOnly, admin: 404, root: 404 },
  },
  // The payment gateway's notify: public, authenticated by its signature only (answers `fail` here).
  { method: 'GET', route: '/api/user/epay/notify', url: () => '/api/user/epay/notify?out_trade_no=x', expect: everyone },
  { method: 'POST', route: '/api/user/epay/notify', url: () => '/api/user/epay/notify', body: () => ({ out_trade_no: 'x' }), expect: everyone },
  { method: 'GET', route: '/api/log/self', url: () => '/api/log/self?p=1', expect: personal },
  { method: 'GET', route: '/api/log/self/stat', url: () => '/api/log/self/stat', expect: personal },
  { method: 'GET', route: '/api/data/self', url: () => '/api/data/self', expect: personal },
  { method: 'GET', route: '/api/redemption', url: () => '/api/redemption/?p=1', expect: adminOnly },
  { method: 'GET', route: '/api/redemption/search', url: () => '/api/redemption/search?keyword=x', expect: adminOnly },
  { method: 'GET', route: '/api/redemption/:id', url: (ids) => `/api/redemption/${ids.redemption}`, expect: adminOnly },
  { method: 'POST', route: '/api/redemption', url: () => '/api/redemption/', body: () => ({ name: 'matrix', quota: 1, count: 1 }), expect: adminOnly },
  { method: 'PUT', route: '/api/redemption', url: () => '/api/redemption/', body: (ids) => ({ id: ids.redemption, name: 'renamed' }), expect: adminOnly },
  { method: 'DELETE', route: '/api/redemption/:id', url: () => '/api/redemption/999999', expect: { ...adminOnly, admin: 404, root: 404 } },
  { method: 'GET', route: '/api/log', url: () => '/api/log/?p=1', expect: adminOnly },
  { method: 'GET', route: '/api/log/stat', url: () => '/api/log/stat', expect: adminOnly },
  { method: 'DELETE', route: '/api/log', url: () => '/api/log/?target_timestamp=1', expect: adminOnly },
  { method: 'GET', route: '/api/data', url: () => '/api/data/', expect: adminOnly },
  { method: 'GET', route: '/api/pricing', url: () => '/api/pricing', expect: everyone },
  { method: 'GET', route: '/internal/billing/health', url: () => '/internal/billing/health', expect: everyone },
  {
    method: 'GET',
    route: '/internal/billing/options',
    url: () => '/internal/billing/options',
    expect: rootOnly,
  },
  // Root's view of the events billing's consumers gave up on (no such dead letter: root gets the 404).
  { method: 'GET', route: '/api/dead_letter/billing/', url: () => '/api/dead_letter/billing/?p=1&page_size=10', expect: rootOnly },
  { method: 'POST', route: '/api/dead_letter/billing/:id/replay', url: () => '/api/dead_letter/billing/424242/replay', expect: { ...rootOnly, root: 404 } },
  { method: 'POST', route: '/api/dead_letter/billing/replay_all', url: () => '/api/dead_letter/billing/replay_all', expect: rootOnly },
  { method: 'DELETE', route: '/api/dead_letter/billing/:id', url: () => '/api/dead_letter/billing/424242', expect: { ...rootOnly, root: 404 } },
];

describe.each(backends)('billing authorization (%s)', (backend) => {
  let gateway: TestGateway;
  const sessions = {} as Record<Exclude<Principal, 'anonymous'>, Session>;
  let ids: Ids;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    sessions.root = await gateway.login('root', ROOT_PASSWORD);
    for (const name of ['userA', 'userB'] as const) {
      await gateway.register(name.toLowerCase(), `${name.toLowerCase()}-password`);
      sessions[name] = await gateway.login(name.toLowerCase(), `${name.toLowerCase()}-password`);
    }
    sessions.admin = await registerAdmin(gateway, sessions.root, 'admin', 'admin-password');

    const created = (await gateway.call('POST', '/api/token/', { session: sessions.userA, body: { name: 'a-token', remain_quota: 1000 } })).json();
    expect(created.success).toBe(true);
    const tokenA = created.data[0].id as number;
    await gateway.call('POST', '/api/redemption/', { session: sessions.root, body: { name: 'matrix', quota: 5, count: 1 } });
    const redemption = (await gateway.call('GET', '/api/redemption/?p=1', { session: sessions.root })).json().data.items[0].id as number;
    ids = { tokenA, redemption };

    // A usage log of A's, so the log views have something to leak if they could.
    await publishEvent(gateway.env.infra.bus, 'relay.usage.recorded', {
      request_id: 'matrix-a-1',
      user_id: sessions.userA.id,
      token_id: tokenA,
      token_name: 'a-token',
      model_name: 'gpt-4o',
      group: 'default',
      channel_id: 7,
      prompt_tokens: 10,
      completion_tokens: 5,
      quota: 20,
      use_time_ms: 100,
      is_stream: false,
      created_at: Math.floor(Date.now() / 1000),
      content: '',
      other: { admin_info: { use_channel: [7] } },
    });
    await waitFor(async () => (await gateway.call('GET', '/api/log/self?p=1', { session: sessions.userA })).json().data.total > 0, 5_000, 'usage logged');
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('has a row for every billing route', () => {
    expect(matrixGaps(gateway, 'billing', matrix)).toEqual({ uncovered: [], stale: [] });
  });

  // DELETE of A's token last, so the earlier rows find it.
  const ordered = [
    ...matrix.filter((row) => !(row.method === 'DELETE' && row.route === '/api/token/:id')),
    ...matrix.filter((row) => row.method === 'DELETE' && row.route === '/api/token/:id'),
  ];
  const principals: Principal[] = ['anonymous', 'userB', 'admin', 'root', 'userA'];

  it.each(ordered.map((row) => [`${row.method} ${row.route}`, row] as const))('%s', async (_name, row) => {
    const outcomes = await probeRow(gateway, row, ids, sessions, principals);
    expect(outcomes).toEqual(row.expect);
  });

  it("never shows A's tokens or logs to B", async () => {
    const tokens = (await gateway.call('GET', '/api/token/?p=1&size=100', { session: sessions.userB })).json().data.items;
    expect(tokens.every((token: { user_id: number }) => token.user_id === sessions.userB.id)).toBe(true);
    const logs = (await gateway.call('GET', '/api/log/self?p=1&page_size=100', { session: sessions.userB })).json().data.items;
    expect(logs.every((log: { user_id: number }) => log.user_id === sessions.userB.id)).toBe(true);
    const own = (await gateway.call('GET', '/api/log/self?p=1&page_size=100', { session: sessions.userA })).json().data.items;
    expect(JSON.stringify(own)).not.toContain('admin_info');
  });
});
