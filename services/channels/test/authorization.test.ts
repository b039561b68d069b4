import { backends } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { matrixGaps, probeRow, registerAdmin, type MatrixRow, type Outcome } from '../../gateway/test/support/authorization-matrix';
import { channelBody, createChannels, onMock } from './support/channels';

type Principal = 'anonymous' | 'user' | 'admin' | 'root';
type Row = MatrixRow<Principal, number>;

const adminOnly: Record<Principal, Outcome> = { anonymous: 401, user: 403, admin: 'ok', root: 'ok' };
const signedIn: Record<Principal, Outcome> = { anonymous: 401, user: 'ok', admin: 'ok', root: 'ok' };
const rootOnly: Record<Principal, Outcome> = { anonymous: 401, user: 403, admin: 403, root: 'ok' };

/** Channel tests, balances and model lists really go through the relay: every channel here is on the loopback mock upstream. */
let mock: MockUpstream;

/** Every channels route. A route missing here fails the completeness test (rule R11). */
const matrix: Row[] = [
  { method: 'GET', route: '/api/channel', url: () => '/api/channel/?p=0', expect: adminOnly },
  { method: 'GET', route: '/api/channel/search', url: () => '/api/channel/search?keyword=a', expect: adminOnly },
  { method: 'GET', route: '/api/channel/:id', url: (id) => `/api/channel/${id}`, expect: adminOnly },
  { method: 'POST', route: '/api/channel', url: () => '/api/channel/', body: () => channelBody(onMock(mock, { key: 'sk-matrix' })), expect: adminOnly },
  { method: 'PUT', route: '/api/channel', url: () => '/api/channel/', body: (id) => ({ id, priority: 1 }), expect: adminOnly },
  { method: 'POST', route: '/api/channel/copy/:id', url: (id) => `/api/channel/copy/${id}`, expect: adminOnly },
  { method: 'POST', route: '/api/channel/tag/enabled', url: () => '/api/channel/tag/enabled', body: () => ({ tag: 'elsewhere' }), expect: adminOnly },
  { method: 'POST', route: '/api/channel/tag/disabled', url: () => '/api/channel/tag/disabled', body: () => ({ tag: 'elsewhere' }), expect: adminOnly },
  { method: 'PUT', route: '/api/channel/tag', url: () => '/api/channel/tag', body: () => ({ tag: 'matrix', priority: 2 }), expect: adminOnly },
  { method: 'POST', route: '/api/channel/batch', url: () => '/api/channel/batch', body: () => ({ ids: [424242] }), expect: adminOnly },
  { method: 'POST', route: '/api/channel/batch/tag', url: () => '/api/channel/batch/tag', body: (id) => ({ ids: [id], tag: 'matrix' }), expect: adminOnly },
  { method: 'DELETE', route: '/api/channel/disabled', url: () => '/api/channel/disabled', expect: adminOnly },
  { method: 'POST', route: '/api/channel/fix', url: () => '/api/channel/fix', expect: adminOnly },
  { method: 'POST', route: '/api/channel/test/:id', url: (id) => `/api/channel/test/${id}`, expect: adminOnly },
  { method: 'POST', route: '/api/channel/test', url: () => '/api/channel/test', expect: adminOnly },
  { method: 'POST', route: '/api/channel/update_balance/:id', url: (id) => `/api/channel/update_balance/${id}`, expect: adminOnly },
  { method: 'POST', route: '/api/channel/update_balance', url: () => '/api/channel/update_balance', expect: adminOnly },
  { method: 'GET', route: '/api/channel/models', url: () => '/api/channel/models', expect: adminOnly },
  { method: 'GET', route: '/api/channel/models_enabled', url: () => '/api/channel/models_enabled', expect: adminOnly },
  { method: 'GET', route: '/api/channel/fetch_models/:id', url: (id) => `/api/channel/fetch_models/${id}`, expect: adminOnly },
  {
    method: 'POST',
    route: '/api/channel/fetch_models',
    url: () => '/api/channel/fetch_models',
    body: () => ({ type: 1, key: 'sk-x', base_url: mock.url, allow_private_network: true }),
    expect: adminOnly,
  },
  {
    method: 'POST',
    route: '/api/channel/multi_key/manage',
    url: () => '/api/channel/multi_key/manage',
    body: () => ({ channel_id: 424242, action: 'get_key_status' }),
    expect: { ...adminOnly, admin: 404, root: 404 },
  },
  { method: 'DELETE', route: '/api/channel/:id', url: () => '/api/channel/424242', expect: { ...adminOnly, admin: 404, root: 404 } },
  // Root only, and only after a step-up (POST /api/verify), which no session here has made.
  { method: 'POST', route: '/api/channel/:id/key', url: (id) => `/api/channel/${id}/key`, expect: { anonymous: 401, user: 403, admin: 403, root: 403 } },
  { method: 'GET', route: '/api/models', url: () => '/api/models', expect: signedIn },
  { method: 'GET', route: '/api/user/models', url: () => '/api/user/models', expect: signedIn },
  {
    method: 'GET',
    route: '/internal/channels/health',
    url: () => '/internal/channels/health',
    expect: { anonymous: 'ok', user: 'ok', admin: 'ok', root: 'ok' },
  },
  {
    method: 'GET',
    route: '/internal/channels/options',
    url: () => '/internal/channels/options',
    expect: rootOnly,
  },
  // Root's view of the events channels's consumers gave up on (no such dead letter: root gets the 404).
  { method: 'GET', route: '/api/dead_letter/channels/', url: () => '/api/dead_letter/channels/?p=1&page_size=10', expect: rootOnly },
  { method: 'POST', route: '/api/dead_letter/channels/:id/replay', url: () => '/api/dead_letter/channels/424242/replay', expect: { ...rootOnly, root: 404 } },
  { method: 'POST', route: '/api/dead_letter/channels/replay_all', url: () => '/api/dead_letter/channels/replay_all', expect: rootOnly },
  { method: 'DELETE', route: '/api/dead_letter/channels/:id', url: () => '/api/dead_letter/channels/424242', expect: { ...rootOnly, root: 404 } },
];

describe.each(backends)('channels authorization (%s)', (backend) => {
  let gateway: TestGateway;
  const sessions = {} as Record<Exclude<Principal, 'anonymous'>, Session>;
  let channelId: number;

  beforeAll(async () => {
    mock = await startMockUpstream({ models: ['mock-gpt'] });
    gateway = await startGateway(backend);
    sessions.root = await gateway.login('root', ROOT_PASSWORD);
    await gateway.register('userx', 'user-password');
    sessions.user = await gateway.login('userx', 'user-password');
    sessions.admin = await registerAdmin(gateway, sessions.root, 'adminx', 'admin-password');
    [channelId] = (await createChannels(gateway, sessions.root, onMock(mock, { key: 'sk-matrix-main' }))) as [number];
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
  });

  it('has a row for every channels route', () => {
    expect(matrixGaps(gateway, 'channels', matrix)).toEqual({ uncovered: [], stale: [] });
  });

  const principals: Principal[] = ['anonymous', 'user', 'admin', 'root'];

  it.each(matrix.map((row) => [`${row.method} ${row.route}`, row] as const))('%s', async (_name, row) => {
    const outcomes = await probeRow(gateway, row, channelId, sessions, principals, /channel|key/);
    expect(outcomes).toEqual(row.expect);
  });
});
