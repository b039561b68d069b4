import type { LightMyRequestResponse } from 'fastify';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { registerAdmin } from '../../gateway/test/support/authorization-matrix';
import { SoftAuthenticator } from './support/authenticator';

/** ServerAddress's factory default: the relying party is `localhost`, the origin http://localhost:3000. */
const ORIGIN = 'http://localhost:3000';

const body = (response: LightMyRequestResponse) => response.json<{ success: boolean; message: string; data?: any }>();
const cookieOf = (response: LightMyRequestResponse, name: string) => response.cookies.find((cookie) => cookie.name === name)?.value;

describe.each(backends)('passkeys (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let count = 0;

  const setOption = async (key: string, value: unknown) => {
    expect(body(await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } }))).toMatchObject({ success: true });
  };

  beforeAll(async () => {
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  async function newUser() {
    const username = `pk${++count}${backend.slice(0, 1)}`;
    await gateway.register(username, `${username}-password`);
    return { username, session: await gateway.login(username, `${username}-password`) };
  }

  /** Registers a passkey of `authenticator` for the session's user. */
  async function register(session: Session, authenticator: SoftAuthenticator, name = 'laptop') {
    const begin = body(await gateway.call('POST', '/api/user/passkey/register/begin', { session }));
    expect(begin).toMatchObject({ success: true });
    return body(await gateway.call('POST', '/api/user/passkey/register/finish', { session, body: { ...authenticator.create(begin.data.options), name } }));
  }

  async function passkeyLogin(authenticator: SoftAuthenticator, origin?: string) {
    const begin = await gateway.call('POST', '/api/user/passkey/login/begin');
    const pending = cookieOf(begin, 'passkey_login');
    const assertion = authenticator.get(body(begin).data.options, origin);
    return {
      pending,
      assertion,
      finish: () => gateway.call('POST', '/api/user/passkey/login/finish', { body: assertion, headers: { cookie: `passkey_login=${pending}` } }),
    };
  }

  it('is refused while the passkey options are off, and shows the relying party in /api/status', async () => {
    const { session } = await newUser();
    expect(body(await gateway.call('POST', '/api/user/passkey/register/begin', { session }))).toMatchObject({
      success: false,
      message: 'the administrator has not enabled passkeys',
    });
    // In the caller's language.
    expect(body(await gateway.call('POST', '/api/user/passkey/register/begin', { session, headers: { 'accept-language': 'zh-CN' } }))).toEqual({
      success: false,
      message: '管理员未启用通行密钥',
    });
    expect(body(await gateway.call('POST', '/api/user/passkey/login/begin'))).toMatchObject({ success: false });
    await setOption('passkey.enabled', true);
    expect(body(await gateway.call('GET', '/api/status')).data).toMatchObject({
      passkey_login: true,
      passkey_rp_id: 'localhost',
      passkey_origins: ORIGIN,
      passkey_user_verification: 'preferred',
      passkey_attachment: '',
    });
    // A plain-http origin that is not loopback is refused unless allowed.
    await setOption('passkey.origins', 'http://gateway.example.com');
    expect(body(await gateway.call('POST', '/api/user/passkey/register/begin', { session }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/https/),
    });
    expect(body(await gateway.call('POST', '/api/user/passkey/register/begin', { session, headers: { 'accept-language': 'zh-CN' } })).message).toMatch(
      /^通行密钥需要 https 来源/,
    );
    await setOption('passkey.origins', '');
    expect(body(await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'passkey.user_verification', value: 'sometimes' } }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/^passkey.user_verification/),
    });
  });

  it('registers passkeys, lists them without their keys, and signs in with one, no password asked', async () => {
    await setOption('passkey.enabled', true);
    const { session, username } = await newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    const created = await register(session, authenticator);
    expect(created).toMatchObject({ success: true, data: { name: 'laptop', last_used_at: null } });

    const listed = body(await gateway.call('GET', '/api/user/passkey', { session })).data;
    expect(listed).toMatchObject({ enabled: true, last_used_at: null, passkeys: [{ id: created.data.id, name: 'laptop' }] });
    expect(JSON.stringify(listed)).not.toMatch(/public_key|credential_id/);

    const { finish } = await passkeyLogin(authenticator);
    const signedIn = await finish();
    expect(body(signedIn)).toMatchObject({ success: true, data: { id: session.id, username } });
    const cookie = cookieOf(signedIn, 'session')!;
    expect((await gateway.call('GET', '/api/user/self', { session: { id: session.id, cookie } })).statusCode).toBe(200);
    expect(body(await gateway.call('GET', '/api/user/passkey', { session })).data.last_used_at).toEqual(expect.any(Number));
  });

  it('refuses an assertion made for another origin, a replayed one, and one without its browser', async () => {
    await setOption('passkey.enabled', true);
    const { session } = await newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await register(session, authenticator);

    const phished = await passkeyLogin(authenticator, 'https://gateway-login.example.net');
    expect(body(await phished.finish())).toMatchObject({ success: false, message: expect.stringMatching(/origin/i) });

    const honest = await passkeyLogin(authenticator);
    expect(body(await honest.finish()).success).toBe(true);
    // The challenge was spent: the same assertion again is refused.
    expect(body(await honest.finish())).toMatchObject({ success: false, message: expect.stringMatching(/expired/) });
    // Without the browser's ceremony cookie nothing can be finished.
    const third = await passkeyLogin(authenticator);
    expect(body(await gateway.call('POST', '/api/user/passkey/login/finish', { body: third.assertion }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/expired/),
    });
  });

  it('needs a step-up to add a passkey to an account that already has one, and removes them', async () => {
    await setOption('passkey.enabled', true);
    const { session } = await newUser();
    const authenticator = new SoftAuthenticator(ORIGIN);
    await register(session, authenticator, 'first');
    expect((await gateway.call('POST', '/api/user/passkey/register/begin', { session })).statusCode).toBe(403);

    // Step up with the first passkey, then a second one may be added.
    const begin = body(await gateway.call('POST', '/api/user/passkey/verify/begin', { session }));
    const verified = body(await gateway.call('POST', '/api/user/passkey/verify/finish', { session, body: authenticator.get(begin.data.options) }));
    expect(verified).toMatchObject({ success: true, data: { verified: true, expires_at: expect.any(Number) } });
    expect((await register(session, new SoftAuthenticator(ORIGIN), 'second')).success).toBe(true);

    const { passkeys } = body(await gateway.call('GET', '/api/user/passkey', { session })).data;
    expect(passkeys.map((passkey: { name: string }) => passkey.name)).toEqual(['first', 'second']);
    expect(body(await gateway.call('DELETE', `/api/user/passkey/${passkeys[0].id}`, { session })).success).toBe(true);
    expect((await gateway.call('DELETE', `/api/user/passkey/${passkeys[0].id}`, { session })).statusCode).toBe(404);
    expect(body(await gateway.call('DELETE', '/api/user/passkey', { session })).success).toBe(true);
    expect(body(await gateway.call('GET', '/api/user/passkey', { session })).data).toEqual({ enabled: false, last_used_at: null, passkeys: [] });
  });

  it("lets an admin reset a lower-level user's passkeys, never a peer's or root's (the established product's advisory)", async () => {
    await setOption('passkey.enabled', true);
    const admin = await registerAdmin(gateway, root, `pkadm${backend.slice(0, 1)}`, 'pkadmin-password');
    const peer = await registerAdmin(gateway, root, `pkpeer${backend.slice(0, 1)}`, 'pkpeer-password');
    for (const session of [root, peer]) await register(session, new SoftAuthenticator(ORIGIN));
    const { session } = await newUser();
    await register(session, new SoftAuthenticator(ORIGIN));

    expect((await gateway.call('DELETE', `/api/user/${root.id}/reset_passkey`, { session: admin })).statusCode).toBe(403);
    expect((await gateway.call('DELETE', `/api/user/${peer.id}/reset_passkey`, { session: admin })).statusCode).toBe(403);
    expect(body(await gateway.call('GET', '/api/user/passkey', { session: root })).data.enabled).toBe(true);
    expect(body(await gateway.call('GET', '/api/user/passkey', { session: peer })).data.enabled).toBe(true);

    expect(body(await gateway.call('DELETE', `/api/user/${session.id}/reset_passkey`, { session: admin })).success).toBe(true);
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session })).statusCode === 401, 5_000, 'sessions revoked');
    // Root may reset the admin's.
    expect(body(await gateway.call('DELETE', `/api/user/${peer.id}/reset_passkey`, { session: root })).success).toBe(true);
    await gateway.call('DELETE', '/api/user/passkey', { session: root });
  });
});
