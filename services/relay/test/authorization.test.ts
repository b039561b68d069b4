import { backends } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { matrixGaps, probeRow, registerAdmin, type MatrixRow, type Outcome } from '../../gateway/test/support/authorization-matrix';

type Principal = 'anonymous' | 'user' | 'admin' | 'root';
type Row = MatrixRow<Principal, never>;

const rootOnly: Record<Principal, Outcome> = { anonymous: 401, user: 403, admin: 403, root: 'ok' };
const rootMissing: Record<Principal, Outcome> = { ...rootOnly, root: 404 };

/**
 * The relay's dead-letter routes. Its API routes are authenticated by sk- keys in the relay
 * (key-before-body.test.ts, relay.test.ts) and its console lists by their own tests
 * (task-lists.test.ts, limits.test.ts), so this matrix is complete for this prefix only.
 */
const prefix = '/api/dead_letter/relay';
const matrix: Row[] = [
  // Root's view of the events the relay's consumers gave up on (no such dead letter: root gets the 404).
  { method: 'GET', route: '/api/dead_letter/relay/', url: () => '/api/dead_letter/relay/?p=1&page_size=10', expect: rootOnly },
  { method: 'POST', route: '/api/dead_letter/relay/:id/replay', url: () => '/api/dead_letter/relay/424242/replay', expect: rootMissing },
  { method: 'POST', route: '/api/dead_letter/relay/replay_all', url: () => '/api/dead_letter/relay/replay_all', expect: rootOnly },
  { method: 'DELETE', route: '/api/dead_letter/relay/:id', url: () => '/api/dead_letter/relay/424242', expect: rootMissing },
];

describe.each(backends)('relay authorization (%s)', (backend) => {
  let gateway: TestGateway;
  const sessions = {} as Record<Exclude<Principal, 'anonymous'>, Session>;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    sessions.root = await gateway.login('root', ROOT_PASSWORD);
    await gateway.register('userx', 'user-password');
    sessions.user = await gateway.login('userx', 'user-password');
    sessions.admin = await registerAdmin(gateway, sessions.root, 'adminx', 'admin-password');
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('has a row for every relay route under its prefix', () => {
    const gaps = matrixGaps(gateway, 'relay', matrix);
    const inScope = (route: string) => route.split(' ')[1]!.startsWith(prefix);
    expect({ uncovered: gaps.uncovered.filter(inScope), stale: gaps.stale }).toEqual({ uncovered: [], stale: [] });
  });

  const principals: Principal[] = ['anonymous', 'user', 'admin', 'root'];

  it.each(matrix.map((row) => [`${row.method} ${row.route}`, row] as const))('%s', async (_name, row) => {
    const outcomes = await probeRow(gateway, row, undefined as never, sessions, principals);
    expect(outcomes).toEqual(row.expect);
  });
});
