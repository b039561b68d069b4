import { backends } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { matrixGaps, probeRow, registerAdmin, type MatrixRow, type Outcome } from '../../gateway/test/support/authorization-matrix';

type Principal = 'anonymous' | 'user' | 'admin' | 'root';
type Row = MatrixRow<Principal, number>;

const rootOnly: Record<Principal, Outcome> = { anonymous: 401, user: 403, admin: 403, root: 'ok' };
// Ids no endpoint has: the refusals must come before the lookup, and root gets the 404.
const missing = 424242;

/** Every notifier route. A route missing here fails the completeness test (rule R11). */
const matrix: Row[] = [
  { method: 'GET', route: '/api/webhook', url: () => '/api/webhook/', expect: rootOnly },
  {
    method: 'POST',
    route: '/api/webhook',
    url: () => '/api/webhook/',
    body: () => ({ url: 'https://93.184.216.34/x', subjects: ['relay.>'] }),
    expect: rootOnly,
  },
  { method: 'PUT', route: '/api/webhook', url: () => '/api/webhook/', body: (id) => ({ id, description: 'matrix' }), expect: rootOnly },
  { method: 'GET', route: '/api/webhook/deliveries', url: () => '/api/webhook/deliveries?kind=&status=', expect: rootOnly },
  { method: 'GET', route: '/api/webhook/:id', url: (id) => `/api/webhook/${id}`, expect: rootOnly },
  { method: 'DELETE', route: '/api/webhook/:id', url: () => `/api/webhook/${missing}`, expect: { ...rootOnly, root: 404 } },
  { method: 'POST', route: '/api/webhook/:id/rotate', url: () => `/api/webhook/${missing}/rotate`, body: () => ({}), expect: { ...rootOnly, root: 404 } },
  { method: 'POST', route: '/api/webhook/:id/test', url: () => `/api/webhook/${missing}/test`, expect: { ...rootOnly, root: 404 } },
  { method: 'GET', route: '/api/job', url: () => '/api/job/', expect: rootOnly },
  {
    method: 'GET',
    route: '/internal/notifier/health',
    url: () => '/internal/notifier/health',
    expect: { anonymous: 'ok', user: 'ok', admin: 'ok', root: 'ok' },
  },
  { method: 'GET', route: '/internal/notifier/options', url: () => '/internal/notifier/options', expect: rootOnly },
  // Root's view of the events notifier's consumers gave up on (no such dead letter: root gets the 404).
  { method: 'GET', route: '/api/dead_letter/notifier/', url: () => '/api/dead_letter/notifier/?p=1&page_size=10', expect: rootOnly },
  { method: 'POST', route: '/api/dead_letter/notifier/:id/replay', url: () => '/api/dead_letter/notifier/424242/replay', expect: { ...rootOnly, root: 404 } },
  { method: 'POST', route: '/api/dead_letter/notifier/replay_all', url: () => '/api/dead_letter/notifier/replay_all', expect: rootOnly },
  { method: 'DELETE', route: '/api/dead_letter/notifier/:id', url: () => '/api/dead_letter/notifier/424242', expect: { ...rootOnly, root: 404 } },
];

describe.each(backends)('notifier authorization (%s)', (backend) => {
  let gateway: TestGateway;
  const sessions = {} as Record<Exclude<Principal, 'anonymous'>, Session>;
  let endpointId: number;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    sessions.root = await gateway.login('root', ROOT_PASSWORD);
    await gateway.register('userx', 'user-password');
    sessions.user = await gateway.login('userx', 'user-password');
    sessions.admin = await registerAdmin(gateway, sessions.root, 'adminx', 'admin-password');
    // A public address that is never called: nothing here publishes a matching event or pings it.
    const created = (
      await gateway.call('POST', '/api/webhook/', { session: sessions.root, body: { url: 'https://93.184.216.34/hook', subjects: ['relay.usage.recorded'] } })
    ).json();
    if (!created.success) throw new Error(`endpoint not created: ${created.message}`);
    endpointId = created.data.id;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('has a row for every notifier route', () => {
    expect(matrixGaps(gateway, 'notifier', matrix)).toEqual({ uncovered: [], stale: [] });
  });

  const principals: Principal[] = ['anonymous', 'user', 'admin', 'root'];

  it.each(matrix.map((row) => [`${row.method} ${row.route}`, row] as const))('%s', async (_name, row) => {
    const outcomes = await probeRow(gateway, row, endpointId, sessions, principals, /webhook|secret|url/);
    expect(outcomes).toEqual(row.expect);
  });
});
