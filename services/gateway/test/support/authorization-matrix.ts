import { declaredRoutes } from '@aigw/platform';
import type { Session, TestGateway } from './gateway';

/**
 * The authorization matrix (rule R11) each service's authorization.test.ts declares: one row per
 * route with the outcome for every kind of caller. These helpers check that the matrix covers
 * exactly the service's routes and probe one row as every caller.
 */

/** ok: served (2xx, the envelope may still report a business failure); or the refusal status. */
export type Outcome = 'ok' | 401 | 403 | 404;

export interface MatrixRow<Principal extends string, Ids> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The route pattern as registered. */
  route: string;
  url: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  expect: Record<Principal, Outcome>;
}

const normalize = (route: string) => (route.length > 1 ? route.replace(/\/$/, '') : route);

/** Routes of `service` without a row, and rows naming no route: both must be empty. */
export function matrixGaps(gateway: TestGateway, service: string, matrix: ReadonlyArray<MatrixRow<string, never>>): { uncovered: string[]; stale: string[] } {
  const routes = declaredRoutes(gateway.app)
    .filter((route) => route.service === service)
    .map((route) => `${route.method} ${normalize(route.url)}`);
  const covered = new Set(matrix.map((row) => `${row.method} ${normalize(row.route)}`));
  return { uncovered: routes.filter((route) => !covered.has(route)), stale: [...covered].filter((route) => !routes.includes(route)) };
}

/**
 * Calls the row's route as each principal ('anonymous' without a session) and returns the
 * outcomes. Every refusal is an envelope; with `leaks`, a 401/403 body must not match it (a
 * refused caller learns nothing, not even the route's validation).
 */
export async function probeRow<Principal extends string, Ids>(
  gateway: TestGateway,
  row: MatrixRow<Principal, Ids>,
  ids: Ids,
  sessions: Partial<Record<Principal, Session>>,
  principals: readonly Principal[],
  leaks?: RegExp,
): Promise<Record<string, number | 'ok'>> {
  const outcomes: Record<string, number | 'ok'> = {};
  for (const principal of principals) {
    const response = await gateway.call(row.method, row.url(ids), { session: sessions[principal], body: row.body?.(ids) });
    outcomes[principal] = response.statusCode === 200 ? 'ok' : response.statusCode;
    if (response.statusCode >= 400) expect(response.json()).toMatchObject({ success: false });
    if (leaks && (response.statusCode === 401 || response.statusCode === 403)) expect(response.body).not.toMatch(leaks);
  }
  return outcomes;
}

/** Registers `username`, has root promote them to admin, and signs them in again with the new role. */
export async function registerAdmin(gateway: TestGateway, root: Session, username: string, password: string): Promise<Session> {
  await gateway.register(username, password);
  const { id } = await gateway.login(username, password);
  const promoted = (await gateway.call('POST', '/api/user/manage', { session: root, body: { id, action: 'promote' } })).json();
  if (!promoted.success) throw new Error(`promote ${username}: ${promoted.message}`);
  return gateway.login(username, password);
}
