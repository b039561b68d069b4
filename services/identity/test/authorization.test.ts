import { isSecretOption, optionKeys } from '@aigw/contracts';
import { backends } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { matrixGaps, probeRow, registerAdmin, type MatrixRow, type Outcome } from '../../gateway/test/support/authorization-matrix';

type Principal = 'anonymous' | 'userA' | 'userB' | 'admin' | 'root';
type Sessions = Record<Exclude<Principal, 'anonymous'>, Session>;

interface Ids {
  userA: number;
  root: number;
  emailA: string;
  /** Throw-away users, one per row that changes its target: no row depends on another's leftovers. */
  target: Record<'put' | 'disable' | 'delete' | 'promote' | 'demote' | 'peer', number>;
}

interface Row extends MatrixRow<Principal, Ids> {
  /** Tells apart the rows of one route (several rows probe the level rules of docs/product.md section 3). */
  note?: string;
  /**
   * The row ends the caller's session, account or access token: it is probed as throw-away
   * principals (new users A, B and admin, a second root session), then `after` checks the effect.
   */
  fresh?: { after?: (gateway: TestGateway, probed: Sessions) => Promise<void> };
}

const everyone: Record<Principal, Outcome> = { anonymous: 'ok', userA: 'ok', userB: 'ok', admin: 'ok', root: 'ok' };
const signedIn: Record<Principal, Outcome> = { anonymous: 401, userA: 'ok', userB: 'ok', admin: 'ok', root: 'ok' };
const adminOnly: Record<Principal, Outcome> = { anonymous: 401, userA: 403, userB: 403, admin: 'ok', root: 'ok' };
/** Admin routes on a user the admin may not touch (same or higher level), or only root may act on. */
const rootOnTarget: Record<Principal, Outcome> = { ...adminOnly, admin: 403 };
const nobodyOnTarget: Record<Principal, Outcome> = { ...adminOnly, admin: 403, root: 403 };
/** An id no user has: the role refusals come before the lookup, and admins get the 404. */
const missingTarget: Record<Principal, Outcome> = { ...adminOnly, admin: 404, root: 404 };
const rootOnly: Record<Principal, Outcome> = { anonymous: 401, userA: 403, userB: 403, admin: 403, root: 'ok' };

const missing = 424242;
const NOTICE = 'matrix notice';
/** Every secret option is set to this (plus its index): no answer may ever carry it, root's included. */
const SECRET_SENTINEL = 'matrix-secret-';
/** A Telegram login widget answer, well formed but unsigned (Telegram login is off anyway). */
const telegramAnswer = { id: '4242', first_name: 'Ann', auth_date: '1700000000', hash: 'ab'.repeat(32) };
/** A well-formed WebAuthn answer that no authenticator made (passkeys are off anyway). */
const webAuthnAnswer = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' } };

/** After the row, each probed session is signed out (401) or, for `stillIn`, still served. */
const sessionsEnded =
  (stillIn: Array<keyof Sessions> = []) =>
  async (gateway: TestGateway, probed: Sessions) => {
    for (const [principal, session] of Object.entries(probed) as Array<[keyof Sessions, Session]>) {
      const self = await gateway.call('GET', '/api/user/self', { session });
      expect([principal, self.statusCode]).toEqual([principal, stillIn.includes(principal) ? 200 : 401]);
    }
  };

/**
 * Every identity route (rule R11), with the level rules of docs/product.md section 3 as extra rows
 * of the admin routes. A route missing here fails the completeness test.
 */
const matrix: Row[] = [
  // Public site texts and configuration.
  { method: 'GET', route: '/api/status', url: () => '/api/status', expect: everyone },
  { method: 'GET', route: '/api/notice', url: () => '/api/notice', expect: everyone },
  { method: 'GET', route: '/api/about', url: () => '/api/about', expect: everyone },
  { method: 'GET', route: '/api/home_page_content', url: () => '/api/home_page_content', expect: everyone },
  { method: 'GET', route: '/api/user/groups', url: () => '/api/user/groups', expect: everyone },

  // Sign-in, registration and reset: public; the bodies are refused by the business rules, so nothing changes.
  {
    method: 'POST',
    route: '/api/user/login',
    note: 'wrong password',
    url: () => '/api/user/login',
    body: () => ({ username: 'usera', password: 'not-the-password' }),
    expect: everyone,
  },
  { method: 'POST', route: '/api/user/logout', url: () => '/api/user/logout', expect: everyone, fresh: { after: sessionsEnded() } },
  {
    method: 'POST',
    route: '/api/user/register',
    note: 'taken username',
    url: () => '/api/user/register',
    body: () => ({ username: 'usera', password: 'another-password', password2: 'another-password' }),
    expect: everyone,
  },
  {
    method: 'POST',
    route: '/api/verification',
    note: 'email already used',
    url: () => '/api/verification',
    body: (ids) => ({ email: ids.emailA }),
    expect: everyone,
  },
  {
    method: 'POST',
    route: '/api/reset_password',
    note: 'unknown email',
    url: () => '/api/reset_password',
    body: () => ({ email: 'nobody@example.com' }),
    expect: everyone,
  },
  {
    method: 'POST',
    route: '/api/user/reset',
    note: "guessed token for A's email",
    url: () => '/api/user/reset',
    body: (ids) => ({ email: ids.emailA, token: 'f'.repeat(32) }),
    expect: everyone,
  },

  // Third-party logins: public callbacks (every provider is off here, so each answers a refusal).
  { method: 'GET', route: '/api/oauth/state', url: () => '/api/oauth/state?aff=', expect: everyone },
  { method: 'GET', route: '/api/oauth/github', url: () => '/api/oauth/github?code=matrix&state=matrix', expect: everyone },
  { method: 'GET', route: '/api/oauth/linuxdo', url: () => '/api/oauth/linuxdo?code=matrix&state=matrix', expect: everyone },
  { method: 'GET', route: '/api/oauth/oidc', url: () => '/api/oauth/oidc?code=matrix&state=matrix', expect: everyone },
  { method: 'POST', route: '/api/oauth/wechat', url: () => '/api/oauth/wechat', body: () => ({ code: 'matrix' }), expect: everyone },
  { method: 'POST', route: '/api/oauth/telegram/login', url: () => '/api/oauth/telegram/login', body: () => telegramAnswer, expect: everyone },

  // The caller's own account.
  { method: 'GET', route: '/api/user/self', url: () => '/api/user/self', expect: signedIn },
  {
    method: 'PUT',
    route: '/api/user/self',
    note: 'password change, wrong current password',
    url: () => '/api/user/self',
    body: () => ({ password: 'new-password-1', original_password: 'not-the-password' }),
    expect: signedIn,
  },
  // Root is served too: the envelope refuses ("the super admin cannot delete their own account").
  { method: 'DELETE', route: '/api/user/self', url: () => '/api/user/self', expect: signedIn, fresh: { after: sessionsEnded(['root']) } },
  { method: 'POST', route: '/api/user/token', url: () => '/api/user/token', expect: signedIn, fresh: {} },
  { method: 'GET', route: '/api/user/aff', url: () => '/api/user/aff', expect: signedIn },
  { method: 'GET', route: '/api/user/self/groups', url: () => '/api/user/self/groups', expect: signedIn },
  {
    method: 'POST',
    route: '/api/oauth/email/bind',
    note: "A's email, wrong code",
    url: () => '/api/oauth/email/bind',
    body: (ids) => ({ email: ids.emailA, code: '000000' }),
    expect: signedIn,
  },
  { method: 'POST', route: '/api/oauth/wechat/bind', url: () => '/api/oauth/wechat/bind', body: () => ({ code: 'matrix' }), expect: signedIn },
  { method: 'POST', route: '/api/oauth/telegram/bind', url: () => '/api/oauth/telegram/bind', body: () => telegramAnswer, expect: signedIn },
  // Each caller's own notification settings and WxPusher binding (WxPusher is pointed at a refused address: no call leaves).
  { method: 'GET', route: '/api/user/setting', url: () => '/api/user/setting', expect: signedIn },
  {
    method: 'PUT',
    route: '/api/user/setting',
    url: () => '/api/user/setting',
    body: () => ({ notify_type: 'email', quota_warning_threshold: 1000 }),
    expect: signedIn,
  },
  { method: 'GET', route: '/api/user/wxpusher/qrcode', url: () => '/api/user/wxpusher/qrcode', expect: signedIn },
  { method: 'POST', route: '/api/user/wxpusher/bind', url: () => '/api/user/wxpusher/bind', body: () => ({ code: 'matrix' }), expect: signedIn },
  { method: 'DELETE', route: '/api/user/wxpusher', url: () => '/api/user/wxpusher', expect: signedIn },

  // User management (admin), with the level rules: nobody reaches the same or a higher level.
  { method: 'GET', route: '/api/group/', url: () => '/api/group/', expect: adminOnly },
  { method: 'GET', route: '/api/user/', url: () => '/api/user/?p=1&page_size=100', expect: adminOnly },
  { method: 'GET', route: '/api/user/search', url: () => '/api/user/search?keyword=user&group=', expect: adminOnly },
  { method: 'GET', route: '/api/user/:id', note: 'user A', url: (ids) => `/api/user/${ids.userA}`, expect: adminOnly },
  { method: 'GET', route: '/api/user/:id', note: 'another admin', url: (ids) => `/api/user/${ids.target.peer}`, expect: rootOnTarget },
  { method: 'GET', route: '/api/user/:id', note: 'root', url: (ids) => `/api/user/${ids.root}`, expect: nobodyOnTarget },
  { method: 'GET', route: '/api/user/:id', note: 'missing', url: () => `/api/user/${missing}`, expect: missingTarget },
  {
    method: 'POST',
    route: '/api/user/',
    note: 'ordinary user, taken username',
    url: () => '/api/user/',
    body: () => ({ username: 'usera', password: 'target-password' }),
    expect: adminOnly,
  },
  {
    method: 'POST',
    route: '/api/user/',
    note: 'admin role, taken username',
    url: () => '/api/user/',
    body: () => ({ username: 'usera', password: 'target-password', role: 10 }),
    expect: rootOnTarget,
  },
  {
    method: 'POST',
    route: '/api/user/',
    note: 'root role',
    url: () => '/api/user/',
    body: () => ({ username: 'second-root', password: 'target-password', role: 100 }),
    expect: nobodyOnTarget,
  },
  {
    method: 'PUT',
    route: '/api/user/',
    note: 'throw-away user',
    url: () => '/api/user/',
    body: (ids) => ({ id: ids.target.put, display_name: 'edited' }),
    expect: adminOnly,
  },
  {
    method: 'PUT',
    route: '/api/user/',
    note: 'root',
    url: () => '/api/user/',
    body: (ids) => ({ id: ids.root, display_name: 'hijacked', password: 'hijacked-pass' }),
    expect: nobodyOnTarget,
  },
  {
    method: 'PUT',
    route: '/api/user/',
    note: 'missing',
    url: () => '/api/user/',
    body: () => ({ id: missing, display_name: 'nobody' }),
    expect: missingTarget,
  },
  {
    method: 'POST',
    route: '/api/user/manage',
    note: 'disable a throw-away user',
    url: () => '/api/user/manage',
    body: (ids) => ({ id: ids.target.disable, action: 'disable' }),
    expect: adminOnly,
  },
  // The admin deregisters it; root is then served a refusal ("the user has been deregistered").
  {
    method: 'POST',
    route: '/api/user/manage',
    note: 'delete a throw-away user',
    url: () => '/api/user/manage',
    body: (ids) => ({ id: ids.target.delete, action: 'delete' }),
    expect: adminOnly,
  },
  {
    method: 'POST',
    route: '/api/user/manage',
    note: 'promote a throw-away user',
    url: () => '/api/user/manage',
    body: (ids) => ({ id: ids.target.promote, action: 'promote' }),
    expect: rootOnTarget,
  },
  {
    method: 'POST',
    route: '/api/user/manage',
    note: 'demote a throw-away admin',
    url: () => '/api/user/manage',
    body: (ids) => ({ id: ids.target.demote, action: 'demote' }),
    expect: rootOnTarget,
  },
  {
    method: 'POST',
    route: '/api/user/manage',
    note: 'disable another admin',
    url: () => '/api/user/manage',
    body: (ids) => ({ id: ids.target.peer, action: 'disable' }),
    expect: rootOnTarget,
  },
  {
    method: 'POST',
    route: '/api/user/manage',
    note: 'disable root',
    url: () => '/api/user/manage',
    body: (ids) => ({ id: ids.root, action: 'disable' }),
    expect: nobodyOnTarget,
  },
  {
    method: 'POST',
    route: '/api/user/manage',
    note: 'missing',
    url: () => '/api/user/manage',
    body: () => ({ id: missing, action: 'enable' }),
    expect: missingTarget,
  },

  // Second factors (issue 22): the caller's own 2FA and passkeys (passkeys are off here, so their
  // ceremonies answer refusals), sign-in steps (public), the step-up, and admins' resets by level.
  { method: 'GET', route: '/api/user/2fa/status', url: () => '/api/user/2fa/status', expect: signedIn },
  { method: 'POST', route: '/api/user/2fa/setup', note: 'a setup not in force', url: () => '/api/user/2fa/setup', expect: signedIn },
  { method: 'POST', route: '/api/user/2fa/enable', note: 'wrong code', url: () => '/api/user/2fa/enable', body: () => ({ code: '000000' }), expect: signedIn },
  {
    method: 'POST',
    route: '/api/user/2fa/disable',
    note: 'not enabled',
    url: () => '/api/user/2fa/disable',
    body: () => ({ code: '000000' }),
    expect: signedIn,
  },
  {
    method: 'POST',
    route: '/api/user/2fa/backup_codes',
    note: 'not enabled',
    url: () => '/api/user/2fa/backup_codes',
    body: () => ({ code: '000000' }),
    expect: signedIn,
  },
  {
    method: 'POST',
    route: '/api/user/login/2fa',
    note: 'no pending sign-in',
    url: () => '/api/user/login/2fa',
    body: () => ({ code: '000000' }),
    expect: everyone,
  },
  { method: 'GET', route: '/api/user/2fa/stats', url: () => '/api/user/2fa/stats', expect: adminOnly },
  { method: 'GET', route: '/api/user/passkey', url: () => '/api/user/passkey', expect: signedIn },
  { method: 'POST', route: '/api/user/passkey/register/begin', note: 'passkeys off', url: () => '/api/user/passkey/register/begin', expect: signedIn },
  {
    method: 'POST',
    route: '/api/user/passkey/register/finish',
    note: 'passkeys off',
    url: () => '/api/user/passkey/register/finish',
    body: () => webAuthnAnswer,
    expect: signedIn,
  },
  { method: 'DELETE', route: '/api/user/passkey', note: 'none registered', url: () => '/api/user/passkey', expect: signedIn },
  {
    method: 'DELETE',
    route: '/api/user/passkey/:id',
    note: 'missing',
    url: () => `/api/user/passkey/${missing}`,
    expect: { ...signedIn, userA: 404, userB: 404, admin: 404, root: 404 },
  },
  { method: 'POST', route: '/api/user/passkey/verify/begin', note: 'passkeys off', url: () => '/api/user/passkey/verify/begin', expect: signedIn },
  {
    method: 'POST',
    route: '/api/user/passkey/verify/finish',
    note: 'passkeys off',
    url: () => '/api/user/passkey/verify/finish',
    body: () => webAuthnAnswer,
    expect: signedIn,
  },
  { method: 'POST', route: '/api/user/passkey/login/begin', note: 'passkeys off', url: () => '/api/user/passkey/login/begin', expect: everyone },
  {
    method: 'POST',
    route: '/api/user/passkey/login/finish',
    note: 'passkeys off',
    url: () => '/api/user/passkey/login/finish',
    body: () => webAuthnAnswer,
    expect: everyone,
  },
  {
    method: 'POST',
    route: '/api/verify',
    note: 'no second factor',
    url: () => '/api/verify',
    body: () => ({ method: '2fa', code: '000000' }),
    expect: signedIn,
  },
  { method: 'DELETE', route: '/api/user/:id/2fa', note: 'user A, not enabled', url: (ids) => `/api/user/${ids.userA}/2fa`, expect: adminOnly },
  { method: 'DELETE', route: '/api/user/:id/2fa', note: 'another admin', url: (ids) => `/api/user/${ids.target.peer}/2fa`, expect: rootOnTarget },
  { method: 'DELETE', route: '/api/user/:id/2fa', note: 'root', url: (ids) => `/api/user/${ids.root}/2fa`, expect: nobodyOnTarget },
  { method: 'DELETE', route: '/api/user/:id/2fa', note: 'missing', url: () => `/api/user/${missing}/2fa`, expect: missingTarget },
  {
    method: 'DELETE',
    route: '/api/user/:id/reset_passkey',
    note: 'user A, none registered',
    url: (ids) => `/api/user/${ids.userA}/reset_passkey`,
    expect: adminOnly,
  },
  {
    method: 'DELETE',
    route: '/api/user/:id/reset_passkey',
    note: 'another admin',
    url: (ids) => `/api/user/${ids.target.peer}/reset_passkey`,
    expect: rootOnTarget,
  },
  { method: 'DELETE', route: '/api/user/:id/reset_passkey', note: 'root', url: (ids) => `/api/user/${ids.root}/reset_passkey`, expect: nobodyOnTarget },
  { method: 'DELETE', route: '/api/user/:id/reset_passkey', note: 'missing', url: () => `/api/user/${missing}/reset_passkey`, expect: missingTarget },

  // Settings: root only. The write stores the value the option already has.
  { method: 'GET', route: '/api/option/', url: () => '/api/option/', expect: rootOnly },
  { method: 'PUT', route: '/api/option/', note: 'same value', url: () => '/api/option/', body: () => ({ key: 'Notice', value: NOTICE }), expect: rootOnly },
  { method: 'POST', route: '/api/option/rest_model_ratio', url: () => '/api/option/rest_model_ratio', expect: rootOnly },

  // The audit trail of every service's admin actions: root only.
  { method: 'GET', route: '/api/audit/', url: () => '/api/audit/', expect: rootOnly },
  // Root's view of the events identity's consumers gave up on (no such dead letter: root gets the 404).
  { method: 'GET', route: '/api/dead_letter/identity/', url: () => '/api/dead_letter/identity/?p=1&page_size=10', expect: rootOnly },
  { method: 'POST', route: '/api/dead_letter/identity/:id/replay', url: () => '/api/dead_letter/identity/424242/replay', expect: { ...rootOnly, root: 404 } },
  { method: 'POST', route: '/api/dead_letter/identity/replay_all', url: () => '/api/dead_letter/identity/replay_all', expect: rootOnly },
  { method: 'DELETE', route: '/api/dead_letter/identity/:id', url: () => '/api/dead_letter/identity/424242', expect: { ...rootOnly, root: 404 } },
];

const rowName = (row: Row) => `${row.method} ${row.route}${row.note ? ` (${row.note})` : ''}`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.each(backends)('identity authorization (%s)', (backend) => {
  let gateway: TestGateway;
  const sessions = {} as Sessions;
  let ids: Ids;
  let accessTokenA: string;
  /** What a 401 or 403 must never contain: users' emails, A's access token, hashes, secret options, field names. */
  let leaks: RegExp;
  let freshCount = 0;

  const succeed = async (answer: Promise<{ json(): { success: boolean; message: string; data?: unknown } }>, what: string) => {
    const body = (await answer).json();
    if (!body.success) throw new Error(`${what}: ${body.message}`);
    return body.data;
  };

  /** New users A, B and admin, and a second root session, for a row that ends what it is called with. */
  const freshSessions = async (): Promise<Sessions> => {
    const tag = `fresh${++freshCount}`;
    for (const suffix of ['a', 'b']) await succeed(gateway.register(`${tag}${suffix}`, `${tag}-password`), `register ${tag}${suffix}`);
    return {
      userA: await gateway.login(`${tag}a`, `${tag}-password`),
      userB: await gateway.login(`${tag}b`, `${tag}-password`),
      admin: await registerAdmin(gateway, sessions.root, `${tag}m`, `${tag}-password`),
      root: await gateway.login('root', ROOT_PASSWORD),
    };
  };

  beforeAll(async () => {
    gateway = await startGateway(backend);
    sessions.root = await gateway.login('root', ROOT_PASSWORD);
    for (const name of ['usera', 'userb']) await succeed(gateway.register(name, `${name}-password`), `register ${name}`);
    sessions.userA = await gateway.login('usera', 'usera-password');
    sessions.userB = await gateway.login('userb', 'userb-password');
    sessions.admin = await registerAdmin(gateway, sessions.root, 'admin', 'admin-password');

    // Data a refused caller must not see: emails, A's access token, and every secret option.
    const emails = { userA: 'usera@example.com', userB: 'userb@example.com', admin: 'admin@example.com' } as const;
    for (const [principal, email] of Object.entries(emails) as Array<[keyof typeof emails, string]>) {
      await succeed(gateway.call('PUT', '/api/user/', { session: sessions.root, body: { id: sessions[principal].id, email } }), `email of ${principal}`);
    }
    accessTokenA = (await succeed(gateway.call('POST', '/api/user/token', { session: sessions.userA }), 'access token of A')) as string;
    const secretKeys = optionKeys.filter((key) => isSecretOption(key));
    expect(secretKeys.length).toBeGreaterThan(5);
    for (const [index, key] of secretKeys.entries()) {
      await succeed(gateway.call('PUT', '/api/option/', { session: sessions.root, body: { key, value: `${SECRET_SENTINEL}${index}` } }), `secret ${key}`);
    }
    await succeed(gateway.call('PUT', '/api/option/', { session: sessions.root, body: { key: 'Notice', value: NOTICE } }), 'notice');
    // A port the egress guard refuses before connecting: the QR code row never calls out.
    await succeed(gateway.call('PUT', '/api/option/', { session: sessions.root, body: { key: 'WxPusherBaseUrl', value: 'http://127.0.0.1:9' } }), 'WxPusher');

    // Throw-away targets of the user management rows; demote and peer are admins.
    const target = {} as Ids['target'];
    for (const name of ['put', 'disable', 'delete', 'promote', 'demote', 'peer'] as const) {
      await succeed(
        gateway.call('POST', '/api/user/', { session: sessions.root, body: { username: `tgt-${name}`, password: 'target-password' } }),
        `create tgt-${name}`,
      );
      const found = (await succeed(gateway.call('GET', `/api/user/search?keyword=tgt-${name}`, { session: sessions.root }), `find tgt-${name}`)) as {
        items: Array<{ id: number; username: string }>;
      };
      target[name] = found.items.find((user) => user.username === `tgt-${name}`)!.id;
    }
    for (const name of ['demote', 'peer'] as const) {
      await succeed(gateway.call('POST', '/api/user/manage', { session: sessions.root, body: { id: target[name], action: 'promote' } }), `promote tgt-${name}`);
    }

    ids = { userA: sessions.userA.id, root: sessions.root.id, emailA: emails.userA, target };
    leaks = new RegExp(
      [...Object.values(emails), accessTokenA, SECRET_SENTINEL, 'tgt-', 'usera', 'userb']
        .map(escapeRegExp)
        .concat(['\\$argon2', 'password', 'token', 'email', 'aff_code', '"data"'])
        .join('|'),
    );
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('has a row for every identity route', () => {
    expect(matrixGaps(gateway, 'identity', matrix)).toEqual({ uncovered: [], stale: [] });
  });

  const principals: Principal[] = ['anonymous', 'userA', 'userB', 'admin', 'root'];

  it.each(matrix.map((row) => [rowName(row), row] as const))('%s', async (_name, row) => {
    const probed = row.fresh ? await freshSessions() : sessions;
    const outcomes = await probeRow(gateway, row, ids, probed, principals, leaks);
    expect(outcomes).toEqual(row.expect);
    await row.fresh?.after?.(gateway, probed);
  });

  it('acted on the throw-away targets of the management rows (their ok was a real change)', async () => {
    const view = async (id: number) =>
      (await succeed(gateway.call('GET', `/api/user/${id}`, { session: sessions.root }), `user ${id}`)) as Record<string, unknown>;
    expect(await view(ids.target.put)).toMatchObject({ display_name: 'edited' });
    expect(await view(ids.target.disable)).toMatchObject({ status: 2 });
    expect((await view(ids.target.delete)).DeletedAt).toEqual(expect.any(String));
    expect(await view(ids.target.promote)).toMatchObject({ role: 10 });
    expect(await view(ids.target.demote)).toMatchObject({ role: 1 });
    expect(await view(ids.target.peer)).toMatchObject({ role: 10, status: 2 });
  });

  it("never answers a password hash, a secret option or A's access token, to anyone", async () => {
    const secrets = new RegExp(`\\$argon2|${SECRET_SENTINEL}|${escapeRegExp(accessTokenA)}|password_hash|access_token`);
    for (const row of matrix.filter((entry) => entry.method === 'GET' && !entry.fresh)) {
      for (const principal of principals) {
        const session = principal === 'anonymous' ? undefined : sessions[principal];
        const answer = await gateway.call('GET', row.url(ids), { session });
        expect({ row: rowName(row), principal, leaked: answer.body.match(secrets)?.[0] ?? null }).toEqual({ row: rowName(row), principal, leaked: null });
      }
    }
  });

  it('changes nothing for a refused caller', async () => {
    const status = (answer: { statusCode: number }) => answer.statusCode;
    expect(status(await gateway.call('PUT', '/api/option/', { session: sessions.admin, body: { key: 'Notice', value: 'admin was here' } }))).toBe(403);
    expect((await gateway.call('GET', '/api/notice')).json().data).toBe(NOTICE);

    expect(status(await gateway.call('POST', '/api/user/manage', { session: sessions.userA, body: { id: sessions.userB.id, action: 'disable' } }))).toBe(403);
    expect(status(await gateway.call('GET', '/api/user/self', { session: sessions.userB }))).toBe(200);

    expect(status(await gateway.call('POST', '/api/user/manage', { session: sessions.admin, body: { id: sessions.root.id, action: 'disable' } }))).toBe(403);
    expect(status(await gateway.call('PUT', '/api/user/', { session: sessions.admin, body: { id: sessions.root.id, password: 'hijacked-pass' } }))).toBe(403);
    await gateway.login('root', ROOT_PASSWORD);

    expect(status(await gateway.call('POST', '/api/user/', { session: sessions.admin, body: { username: 'sneaky', password: 'sneaky-pass', role: 10 } }))).toBe(
      403,
    );
    expect(status(await gateway.call('POST', '/api/user/', { session: sessions.userA, body: { username: 'sneaky', password: 'sneaky-pass' } }))).toBe(403);
    expect((await gateway.call('GET', '/api/user/search?keyword=sneaky', { session: sessions.root })).json().data.total).toBe(0);

    const promoted = await gateway.call('POST', '/api/user/manage', { session: sessions.admin, body: { id: sessions.userB.id, action: 'promote' } });
    expect(status(promoted)).toBe(403);
    expect((await gateway.call('GET', `/api/user/${sessions.userB.id}`, { session: sessions.root })).json().data.role).toBe(1);
  });

  it('leaves the shared principals as they were (the destructive rows used throw-away ones)', async () => {
    for (const principal of ['userA', 'userB', 'admin', 'root'] as const) {
      const self = await gateway.call('GET', '/api/user/self', { session: sessions[principal] });
      expect([principal, self.statusCode, self.json().data?.id]).toEqual([principal, 200, sessions[principal].id]);
    }
    expect((await gateway.call('GET', '/api/user/self', { session: sessions.admin })).json().data.role).toBe(10);
    expect((await gateway.call('GET', '/api/user/self', { session: sessions.root })).json().data).toMatchObject({
      display_name: 'Root User',
      role: 100,
      status: 1,
    });
    // A's access token was generated once, in the setup: no row replaced it.
    const byToken = await gateway.call('GET', '/api/user/self', {
      headers: { authorization: `Bearer ${accessTokenA}`, 'new-api-user': String(sessions.userA.id) },
    });
    expect([byToken.statusCode, byToken.json().data?.id]).toEqual([200, sessions.userA.id]);
  });
});
