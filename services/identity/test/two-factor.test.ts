import type { LightMyRequestResponse } from 'fastify';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { registerAdmin } from '../../gateway/test/support/authorization-matrix';
import { totpCode } from '../src/domain/two-factor';
import { TwoFactorEntity } from '../src/entities/two-factor.entity';
import { CODE_ATTEMPTS_MAX } from '../src/second-factors';

const STEP_MS = 30_000;

/** The codes of the step before, the current one and the next (the three the server accepts). */
function codesAround(secret: string, now = Date.now()) {
  return { previous: totpCode(secret, now - STEP_MS), current: totpCode(secret, now), next: totpCode(secret, now + STEP_MS) };
}

/**
 * Waits, when needed, until a fresh 30-second step has begun, so the three codes of a test stay
 * valid while it runs (a wait on the clock's state, not a fixed pause).
 */
async function freshStep(): Promise<void> {
  const left = STEP_MS - (Date.now() % STEP_MS);
  if (left < 8_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

const cookieOf = (response: LightMyRequestResponse, name: string) => response.cookies.find((cookie) => cookie.name === name)?.value;

describe.each(backends)('two-factor sign-in (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let count = 0;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const body = (response: LightMyRequestResponse) => response.json<{ success: boolean; message: string; data?: any }>();

  /** A new user with a session; `twoFactor` also sets up and enables TOTP (with the previous step's code). */
  async function newUser(twoFactor: boolean) {
    const username = `tf${++count}${backend.slice(0, 1)}`;
    const password = `${username}-password`;
    await gateway.register(username, password);
    const session = await gateway.login(username, password);
    let secret = '';
    let backupCodes: string[] = [];
    if (twoFactor) {
      await freshStep();
      const setup = body(await gateway.call('POST', '/api/user/2fa/setup', { session }));
      expect(setup.success).toBe(true);
      secret = setup.data.secret;
      backupCodes = setup.data.backup_codes;
      const enabled = body(await gateway.call('POST', '/api/user/2fa/enable', { session, body: { code: codesAround(secret).previous } }));
      expect(enabled).toMatchObject({ success: true });
    }
    return { username, password, session, secret, backupCodes };
  }

  const passwordLogin = (username: string, password: string) => gateway.call('POST', '/api/user/login', { body: { username, password } });
  const secondStep = (pending: string | undefined, code: string) =>
    gateway.call('POST', '/api/user/login/2fa', { body: { code }, headers: pending ? { cookie: `login_2fa=${pending}` } : {} });

  it('sets up TOTP: nothing is in force until a first code confirms it, and the secret is sealed at rest', async () => {
    const { session, username } = await newUser(false);
    expect(body(await gateway.call('GET', '/api/user/2fa/status', { session })).data).toEqual({ enabled: false, locked: false });
    await freshStep();
    const setup = body(await gateway.call('POST', '/api/user/2fa/setup', { session }));
    expect(setup.data.qr_code_data).toMatch(new RegExp(`^otpauth://totp/.*${username}.*secret=${setup.data.secret}`));
    expect(setup.data.backup_codes).toHaveLength(10);
    // Not yet in force: the password alone still signs in.
    expect(body(await passwordLogin(username, `${username}-password`)).data).toHaveProperty('id');

    expect(body(await gateway.call('POST', '/api/user/2fa/enable', { session, body: { code: '000000' } }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/wrong/),
    });
    expect(body(await gateway.call('POST', '/api/user/2fa/enable', { session, body: { code: 'abc' } }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/^code\b/),
    });
    expect(body(await gateway.call('POST', '/api/user/2fa/enable', { session, body: { code: codesAround(setup.data.secret).current } })).success).toBe(true);
    expect(body(await gateway.call('GET', '/api/user/2fa/status', { session })).data).toEqual({ enabled: true, locked: false, backup_codes_remaining: 10 });
    // A second setup while enabled is refused.
    expect(body(await gateway.call('POST', '/api/user/2fa/setup', { session })).success).toBe(false);
  });

  it('a password-correct login of a 2FA user is no session until the second step, which is bound to the browser and single use', async () => {
    const user = await newUser(true);
    const codes = codesAround(user.secret);

    const first = await passwordLogin(user.username, user.password);
    expect(body(first)).toEqual({ success: true, message: 'enter the code of your authenticator app', data: { require_2fa: true } });
    expect(cookieOf(first, 'session')).toBeUndefined();
    const pending = cookieOf(first, 'login_2fa');
    expect(pending).toBeTruthy();
    // The pending login is not a session.
    expect((await gateway.call('GET', '/api/user/self', { session: { id: user.session.id, cookie: pending! } })).statusCode).toBe(401);

    // Another browser (no cookie, or a made-up one) cannot finish it.
    expect(body(await secondStep(undefined, codes.current))).toEqual({ success: false, message: 'the sign-in has expired, please sign in again' });
    const expiredInChinese = await gateway.call('POST', '/api/user/login/2fa', { body: { code: codes.current }, headers: { 'accept-language': 'zh-CN' } });
    expect(body(expiredInChinese)).toEqual({ success: false, message: '登录已过期，请重新登录' });
    expect(body(await secondStep('forged', codes.current))).toMatchObject({ success: false, message: expect.stringMatching(/expired/) });
    // A wrong code leaves it in place; the enabling code (previous step) is spent.
    expect(body(await secondStep(pending, '123456'))).toEqual({ success: false, message: 'the verification code or backup code is wrong, please try again' });
    // In the caller's language.
    const inChinese = await gateway.call('POST', '/api/user/login/2fa', {
      body: { code: '123456' },
      headers: { cookie: `login_2fa=${pending}`, 'accept-language': 'zh-CN' },
    });
    expect(body(inChinese)).toEqual({ success: false, message: '验证码或备用码错误，请重试' });
    expect(body(await secondStep(pending, codes.previous))).toMatchObject({ success: false, message: expect.stringMatching(/wrong/) });

    const done = await secondStep(pending, codes.current);
    expect(body(done)).toMatchObject({ success: true, data: { id: user.session.id, username: user.username } });
    const cookie = cookieOf(done, 'session')!;
    expect((await gateway.call('GET', '/api/user/self', { session: { id: user.session.id, cookie } })).statusCode).toBe(200);

    // Single use: the same pending login, even with a fresh code, is gone.
    expect(body(await secondStep(pending, codes.next))).toMatchObject({ success: false, message: expect.stringMatching(/expired/) });
    // And the code of this window was used: a second sign-in cannot reuse it.
    const again = cookieOf(await passwordLogin(user.username, user.password), 'login_2fa');
    expect(body(await secondStep(again, codes.current))).toMatchObject({ success: false, message: expect.stringMatching(/wrong/) });
    expect(body(await secondStep(again, codes.next)).success).toBe(true);
  });

  it('takes each backup code once, and counts down the remaining ones', async () => {
    const user = await newUser(true);
    const [code] = user.backupCodes;
    const pending = cookieOf(await passwordLogin(user.username, user.password), 'login_2fa');
    // Typed in lower case without the dash: still the code.
    expect(body(await secondStep(pending, code!.toLowerCase().replace('-', ''))).success).toBe(true);
    const again = cookieOf(await passwordLogin(user.username, user.password), 'login_2fa');
    expect(body(await secondStep(again, code!))).toMatchObject({ success: false, message: expect.stringMatching(/wrong/) });
    expect(body(await gateway.call('GET', '/api/user/2fa/status', { session: user.session })).data.backup_codes_remaining).toBe(9);

    // New codes need an authenticator code; the old set stops working.
    expect(body(await gateway.call('POST', '/api/user/2fa/backup_codes', { session: user.session, body: { code: user.backupCodes[1]! } })).success).toBe(false);
    const renewed = body(await gateway.call('POST', '/api/user/2fa/backup_codes', { session: user.session, body: { code: codesAround(user.secret).current } }));
    expect(renewed.data.backup_codes).toHaveLength(10);
    expect(body(await secondStep(again, user.backupCodes[2]!))).toMatchObject({ success: false });
    expect(body(await secondStep(again, renewed.data.backup_codes[0])).success).toBe(true);
  });

  it('limits wrong codes per user, whichever browser sends them', async () => {
    const user = await newUser(true);
    for (let attempt = 0; attempt < CODE_ATTEMPTS_MAX; attempt++) {
      // A new pending login each time: the limit is the user's, not the browser's.
      const pending = cookieOf(await passwordLogin(user.username, user.password), 'login_2fa');
      expect(body(await secondStep(pending, '000000')).success).toBe(false);
    }
    const pending = cookieOf(await passwordLogin(user.username, user.password), 'login_2fa');
    const refused = await secondStep(pending, codesAround(user.secret).current);
    expect(refused.statusCode).toBe(429);
    expect(body(refused)).toEqual({ success: false, message: 'too many wrong codes, try again in a few minutes' });
    expect(body(await gateway.call('GET', '/api/user/2fa/status', { session: user.session })).data.locked).toBe(true);
  });

  it('keeps the TOTP secret sealed in the database', async () => {
    const user = await newUser(true);
    const response = await gateway.call('GET', '/api/user/2fa/status', { session: user.session });
    expect(body(response).data.enabled).toBe(true);
    const rows = await findTwoFactorRows(gateway, user.session.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret_sealed).not.toContain(user.secret);
    expect(rows[0]!.secret_sealed.split('.')).toHaveLength(3);
  });

  it('disables with a code (a backup code will do); the password alone signs in again', async () => {
    const user = await newUser(true);
    expect(body(await gateway.call('POST', '/api/user/2fa/disable', { session: user.session, body: { code: '000000' } })).success).toBe(false);
    expect(body(await gateway.call('POST', '/api/user/2fa/disable', { session: user.session, body: { code: user.backupCodes[3]! } })).success).toBe(true);
    expect(body(await passwordLogin(user.username, user.password)).data).toHaveProperty('id', user.session.id);
  });

  it('lets an admin reset the 2FA of a lower-level user only', async () => {
    const admin = await registerAdmin(gateway, root, `tfadm${backend.slice(0, 1)}`, 'tfadmin-password');
    const peer = await registerAdmin(gateway, root, `tfpeer${backend.slice(0, 1)}`, 'tfpeer-password');
    const user = await newUser(true);

    expect((await gateway.call('DELETE', `/api/user/${root.id}/2fa`, { session: admin })).statusCode).toBe(403);
    expect((await gateway.call('DELETE', `/api/user/${peer.id}/2fa`, { session: admin })).statusCode).toBe(403);
    expect((await gateway.call('DELETE', `/api/user/${user.session.id}/2fa`, { session: user.session })).statusCode).toBe(403);
    expect((await gateway.call('DELETE', '/api/user/424242/2fa', { session: admin })).statusCode).toBe(404);

    expect(body(await gateway.call('DELETE', `/api/user/${user.session.id}/2fa`, { session: admin })).success).toBe(true);
    // The user's sessions end; the password alone signs in.
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session: user.session })).statusCode === 401, 5_000, 'sessions revoked');
    expect(body(await passwordLogin(user.username, user.password)).data).toHaveProperty('id', user.session.id);
    expect(body(await gateway.call('DELETE', `/api/user/${user.session.id}/2fa`, { session: admin })).success).toBe(false);

    const stats = body(await gateway.call('GET', '/api/user/2fa/stats', { session: admin }));
    expect(stats.data).toMatchObject({ total_users: expect.any(Number), enabled_users: expect.any(Number), passkey_users: expect.any(Number) });
  });
});

/** The user's TOTP row as stored. */
async function findTwoFactorRows(gateway: TestGateway, userId: number): Promise<TwoFactorEntity[]> {
  const { openDatabase, createSilentLogger } = await import('@aigw/platform');
  const { identityMigrations } = await import('../src/migrations/index');
  const { BackupCodeEntity } = await import('../src/entities/two-factor.entity');
  const { PasskeyEntity } = await import('../src/entities/passkey.entity');
  const db = await openDatabase({
    url: gateway.env.databaseUrl,
    dataDir: gateway.env.dataDir,
    schema: gateway.env.schema('identity'),
    entities: [TwoFactorEntity, BackupCodeEntity, PasskeyEntity],
    migrations: identityMigrations,
    logger: createSilentLogger(),
  });
  try {
    return await db.getRepository(TwoFactorEntity).findBy({ user_id: userId });
  } finally {
    await db.destroy();
  }
}
