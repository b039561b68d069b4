import type { LightMyRequestResponse } from 'fastify';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from './support/gateway';
import { registerAdmin } from './support/authorization-matrix';
import { SoftAuthenticator } from '../../identity/test/support/authenticator';
import { totpCode } from '../../identity/src/domain/two-factor';

const ORIGIN = 'http://localhost:3000';
const CHANNEL_KEY = 'sk-step-up-canary-0123456789';
const STEP_UP_TTL_MS = 4_000;

const body = (response: LightMyRequestResponse) => response.json<{ success: boolean; message: string; data?: any }>();

// Item 12 of issue 22: POST /api/verify opens a short window in which root may reveal a channel
// key; without it (or with a claim nothing proves, as the established product accepted) the
// reveal is refused.
describe.each(backends)('step-up before secrets (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let channelId: number;

  const reveal = (session: Session) => gateway.call('POST', `/api/channel/${channelId}/key`, { session });
  const verify = (session: Session, payload: unknown) => gateway.call('POST', '/api/verify', { session, body: payload });

  beforeAll(async () => {
    gateway = await startGateway(backend, { STEP_UP_TTL_MS: String(STEP_UP_TTL_MS) });
    root = await gateway.login('root', ROOT_PASSWORD);
    expect(
      body(
        await gateway.call('POST', '/api/channel/', {
          session: root,
          body: { type: 1, name: 'step-up', key: CHANNEL_KEY, models: 'gpt-4o-mini', group: 'default' },
        }),
      ).success,
    ).toBe(true);
    const list = body(await gateway.call('GET', '/api/channel/?p=0', { session: root })).data;
    channelId = list.items.find((row: { name: string }) => row.name === 'step-up').id;
    expect(body(await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'passkey.enabled', value: true } })).success).toBe(true);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('refuses the reveal without a step-up, and a user without a second factor is told to set one up', async () => {
    const refused = await reveal(root);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain(CHANNEL_KEY);
    expect(body(await verify(root, { method: '2fa', code: '123456' }))).toMatchObject({
      success: false,
      message: expect.stringMatching(/set up two-factor authentication or a passkey first/),
    });
    expect(body(await verify(root, { method: 'sms', code: '1' }))).toMatchObject({ success: false, message: expect.stringMatching(/method/) });
  });

  it('refuses an unverified passkey claim (the established product accepted {"method":"passkey"} alone)', async () => {
    const authenticator = new SoftAuthenticator(ORIGIN);
    const begin = body(await gateway.call('POST', '/api/user/passkey/register/begin', { session: root }));
    expect(
      body(await gateway.call('POST', '/api/user/passkey/register/finish', { session: root, body: authenticator.create(begin.data.options) })).success,
    ).toBe(true);

    expect(body(await verify(root, { method: 'passkey' }))).toMatchObject({ success: false, message: expect.stringMatching(/^credential/) });
    expect((await reveal(root)).statusCode).toBe(403);
    // An assertion without the challenge of this session's verify/begin proves nothing either.
    const forged = authenticator.get({ challenge: Buffer.from('made-up challenge').toString('base64url') });
    expect(body(await verify(root, { method: 'passkey', credential: forged }))).toMatchObject({ success: false });
    expect((await reveal(root)).statusCode).toBe(403);

    // The real thing: verify/begin's challenge, asserted, sent to /api/verify.
    const challenge = body(await gateway.call('POST', '/api/user/passkey/verify/begin', { session: root }));
    const verified = body(await verify(root, { method: 'passkey', credential: authenticator.get(challenge.data.options) }));
    expect(verified).toMatchObject({ success: true, data: { verified: true, expires_at: expect.any(Number) } });
    expect(body(await reveal(root))).toEqual({ success: true, message: '', data: { key: CHANNEL_KEY } });
    await gateway.call('DELETE', '/api/user/passkey', { session: root });
  });

  it('opens the window for this session only, with a 2FA code used once, and closes it after STEP_UP_TTL_MS', async () => {
    // Early in a 30-second step, so the previous and current codes stay the ones the server takes.
    const left = 30_000 - (Date.now() % 30_000);
    if (left < 8_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const setup = body(await gateway.call('POST', '/api/user/2fa/setup', { session: root })).data;
    const now = Date.now();
    expect(body(await gateway.call('POST', '/api/user/2fa/enable', { session: root, body: { code: totpCode(setup.secret, now - 30_000) } })).success).toBe(
      true,
    );

    // The root signs in a second browser (2FA step included).
    const login = await gateway.call('POST', '/api/user/login', { body: { username: 'root', password: ROOT_PASSWORD } });
    const pending = login.cookies.find((cookie) => cookie.name === 'login_2fa')!.value;
    const second = await gateway.call('POST', '/api/user/login/2fa', { body: { code: setup.backup_codes[0] }, headers: { cookie: `login_2fa=${pending}` } });
    const otherBrowser = { id: root.id, cookie: second.cookies.find((cookie) => cookie.name === 'session')!.value };

    expect(body(await verify(root, { method: '2fa', code: '000000' })).success).toBe(false);
    const opened = body(await verify(root, { method: '2fa', code: totpCode(setup.secret, now) }));
    expect(opened).toMatchObject({ success: true, data: { verified: true } });
    // The code is spent: the other browser cannot step up with it.
    expect(body(await verify(otherBrowser, { method: '2fa', code: totpCode(setup.secret, now) })).success).toBe(false);
    expect(body(await reveal(root)).data).toEqual({ key: CHANNEL_KEY });
    expect((await reveal(otherBrowser)).statusCode).toBe(403);

    // An admin is never served, stepped up or not.
    const admin = await registerAdmin(gateway, root, `suadm${backend.slice(0, 1)}`, 'suadmin-password');
    expect((await reveal(admin)).statusCode).toBe(403);

    // Past the window's end (expires_at is in whole seconds, rounded down), the reveal is refused again.
    await waitFor(() => Date.now() > (opened.data.expires_at + 1) * 1000, STEP_UP_TTL_MS + 3_000, 'the step-up window to end');
    expect((await reveal(root)).statusCode).toBe(403);
    expect(body(await gateway.call('POST', '/api/user/2fa/disable', { session: root, body: { code: setup.backup_codes[1] } })).success).toBe(true);
  });

  it('cannot be opened with an access token, which has no session', async () => {
    const token = body(await gateway.call('POST', '/api/user/token', { session: root })).data as string;
    const answer = await gateway.call('POST', '/api/verify', {
      body: { method: '2fa', code: '123456' },
      headers: { authorization: token, 'new-api-user': String(root.id) },
    });
    expect(body(answer)).toMatchObject({ success: false, message: expect.stringMatching(/console session/) });
    expect(
      (await gateway.call('POST', `/api/channel/${channelId}/key`, { headers: { authorization: token, 'new-api-user': String(root.id) } })).statusCode,
    ).toBe(403);
  });
});
