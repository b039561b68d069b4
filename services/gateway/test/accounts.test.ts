import { backends, waitFor } from '@aigw/platform/testing';
import type { BusEvent } from '@aigw/platform';
import { ROOT_PASSWORD, startGateway, type TestGateway } from './support/gateway';
import { useLoopbackSmtp } from './support/loopback-smtp';

describe.each(backends)('accounts (%s)', (backend) => {
  let gateway: TestGateway;
  const mails: BusEvent[] = [];

  beforeAll(async () => {
    gateway = await startGateway(backend);
    await gateway.env.infra.bus.subscribe('notifier.mail.requested', async (event) => void mails.push(event), {});
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const userCount = async (session: Awaited<ReturnType<TestGateway['login']>>) =>
    (await gateway.call('GET', '/api/user/?p=1&page_size=100', { session })).json().data.total as number;
  /** A registration that asks for English answers (`gateway.register` sends no language: it answers in zh-CN). */
  const registerInEnglish = (username: string, password: string) =>
    gateway.call('POST', '/api/user/register', { body: { username, password, password2: password } });

  it('answers /api/status with the envelope', async () => {
    const response = await gateway.call('GET', '/api/status');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true, data: { system_name: 'AI Gateway', quota_per_unit: 500000, setup: true } });
  });

  it('registers, refuses bad input naming the field, and writes nothing on failure', async () => {
    const root = await gateway.login('root', ROOT_PASSWORD);
    const before = await userCount(root);

    const short = (await registerInEnglish('shorty', 'abc')).json();
    expect(short).toEqual({ success: false, message: 'password length must not be less than 8' });
    expect((await gateway.register('shorty', 'abc')).json()).toEqual({ success: false, message: '密码长度不得小于 8 位' });
    const mismatch = (await gateway.call('POST', '/api/user/register', { body: { username: 'mismatch', password: '12345678', password2: '87654321' } })).json();
    expect(mismatch.message).toMatch(/password2: the two passwords do not match/);
    const noName = (await gateway.call('POST', '/api/user/register', { body: { password: '12345678' } })).json();
    expect(noName).toMatchObject({ success: false, message: expect.stringMatching(/^username/) });
    const longName = (await registerInEnglish('a-very-long-username', '12345678')).json();
    expect(longName.message).toMatch(/username must be at most 12/);
    expect(await userCount(root)).toBe(before);

    expect((await gateway.register('alice', 'alice-pass-1')).json()).toEqual({ success: true, message: '' });
    const again = (await registerInEnglish('alice', 'another-pass')).json();
    expect(again).toEqual({ success: false, message: 'username: already taken' });
    expect((await gateway.register('alice', 'another-pass')).json()).toEqual({ success: false, message: 'username: 该用户名已被占用' });
    expect(await userCount(root)).toBe(before + 1);
  });

  it('ignores fields a user may not set at registration (mass assignment)', async () => {
    await gateway.register('mallory', 'mallory-pass', { role: 100, quota: 1e9, group: 'vip', status: 1 });
    const session = await gateway.login('mallory', 'mallory-pass');
    const self = (await gateway.call('GET', '/api/user/self', { session })).json().data;
    expect(self).toMatchObject({ role: 1, group: 'default', quota: 0 });
  });

  it('records the inviter from aff_code', async () => {
    const inviter = await gateway.login('alice', 'alice-pass-1');
    const code = (await gateway.call('GET', '/api/user/aff', { session: inviter })).json().data as string;
    expect(code).toMatch(/^[A-Za-z0-9]{4}$/);
    await gateway.register('invitee', 'invitee-pass', { aff_code: code });
    const session = await gateway.login('invitee', 'invitee-pass');
    expect((await gateway.call('GET', '/api/user/self', { session })).json().data.inviter_id).toBe(inviter.id);
  });

  it('logs in, needs New-Api-User to match, and never shows secrets', async () => {
    const response = await gateway.call('POST', '/api/user/login', { body: { username: 'alice', password: 'alice-pass-1' } });
    const body = response.json();
    expect(body).toMatchObject({ success: true, data: { username: 'alice', role: 1, status: 1, default_password: false } });
    expect(JSON.stringify(body)).not.toMatch(/password_hash|argon2|access_token/);
    const cookie = response.headers['set-cookie'] as string;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const session = { id: body.data.id as number, cookie: response.cookies[0]!.value };

    expect((await gateway.call('GET', '/api/user/self', { session })).statusCode).toBe(200);
    const missing = await gateway.call('GET', '/api/user/self', { headers: { cookie: `session=${session.cookie}` } });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ success: false, message: expect.any(String) });
    const wrong = await gateway.call('GET', '/api/user/self', { session, headers: { 'new-api-user': String(session.id + 1) } });
    expect(wrong.statusCode).toBe(401);
    expect((await gateway.call('GET', '/api/user/self')).statusCode).toBe(401);
  });

  it('refuses wrong credentials without telling which part was wrong', async () => {
    const wrong = (
      await gateway.call('POST', '/api/user/login', { body: { username: 'alice', password: 'nope-nope' }, headers: { 'accept-language': '' } })
    ).json();
    // In the caller's language: the console sends its own (zh-CN when a client sends none).
    expect(wrong).toEqual({ success: false, message: '用户名或密码错误，或用户已被封禁' });
    const english = await gateway.call('POST', '/api/user/login', {
      body: { username: 'alice', password: 'nope-nope' },
      headers: { 'accept-language': 'en-US' },
    });
    expect(english.json()).toEqual({ success: false, message: 'username or password is wrong, or the user has been banned' });
    const unknown = (
      await gateway.call('POST', '/api/user/login', { body: { username: 'nobody', password: 'nope-nope' }, headers: { 'accept-language': '' } })
    ).json();
    expect(unknown.message).toBe(wrong.message);
    const empty = (await gateway.call('POST', '/api/user/login', { body: { username: '', password: '' } })).json();
    expect(empty.message).toMatch(/please enter username and password/);
  });

  it('logs in with the email too', async () => {
    const root = await gateway.login('root', ROOT_PASSWORD);
    const bob = await (async () => {
      await gateway.register('bob', 'bob-pass-123');
      return gateway.login('bob', 'bob-pass-123');
    })();
    expect((await gateway.call('PUT', '/api/user/', { session: root, body: { id: bob.id, email: 'bob@example.com' } })).json().success).toBe(true);
    const byEmail = (await gateway.call('POST', '/api/user/login', { body: { username: 'bob@example.com', password: 'bob-pass-123' } })).json();
    expect(byEmail).toMatchObject({ success: true, data: { username: 'bob' } });
  });

  it('changes the password only with the current one, and ends the other sessions', async () => {
    await gateway.register('carol', 'carol-pass-1');
    const first = await gateway.login('carol', 'carol-pass-1');
    const second = await gateway.login('carol', 'carol-pass-1');
    const refused = (await gateway.call('PUT', '/api/user/self', { session: first, body: { password: 'carol-pass-2' } })).json();
    expect(refused.message).toBe('original_password is required to change the password');
    const refusedInChinese = await gateway.call('PUT', '/api/user/self', {
      session: first,
      body: { password: 'carol-pass-2' },
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(refusedInChinese.json().message).toBe('修改密码需要填写原密码');
    const wrongCurrent = (language: string) =>
      gateway.call('PUT', '/api/user/self', {
        session: first,
        body: { password: 'carol-pass-2', original_password: 'bad-bad-bad' },
        headers: { 'accept-language': language },
      });
    expect((await wrongCurrent('en-US')).json()).toEqual({ success: false, message: 'original_password: the current password is wrong' });
    expect((await wrongCurrent('zh-CN')).json()).toEqual({ success: false, message: 'original_password: 原密码错误' });
    const changed = (
      await gateway.call('PUT', '/api/user/self', { session: first, body: { password: 'carol-pass-2', original_password: 'carol-pass-1' } })
    ).json();
    expect(changed.success).toBe(true);
    expect((await gateway.call('GET', '/api/user/self', { session: first })).statusCode).toBe(200);
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session: second })).statusCode === 401, 5_000, 'second session revoked');
    expect((await gateway.call('POST', '/api/user/login', { body: { username: 'carol', password: 'carol-pass-1' } })).json().success).toBe(false);
    await gateway.login('carol', 'carol-pass-2');
  });

  it('logs out: the cookie stops working', async () => {
    const session = await gateway.login('alice', 'alice-pass-1');
    const out = await gateway.call('POST', '/api/user/logout', { session });
    expect(out.json()).toEqual({ success: true, message: '' });
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session })).statusCode === 401, 5_000, 'logged out');
  });

  it('generates a system access token that works with New-Api-User, and replaces the previous one', async () => {
    const session = await gateway.login('alice', 'alice-pass-1');
    const token = (await gateway.call('POST', '/api/user/token', { session })).json().data as string;
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
    const viaToken = await gateway.call('GET', '/api/user/self', { headers: { authorization: token, 'new-api-user': String(session.id) } });
    expect(viaToken.json()).toMatchObject({ success: true, data: { username: 'alice' } });
    const bearer = await gateway.call('GET', '/api/user/self', { headers: { authorization: `Bearer ${token}`, 'new-api-user': String(session.id) } });
    expect(bearer.statusCode).toBe(200);
    const replacement = (await gateway.call('POST', '/api/user/token', { session })).json().data as string;
    expect(replacement).not.toBe(token);
    await waitFor(
      async () => (await gateway.call('GET', '/api/user/self', { headers: { authorization: token, 'new-api-user': String(session.id) } })).statusCode === 401,
      5_000,
      'old token revoked',
    );
  });

  it('deletes its own account: deregistered, the name stays taken, the session ends', async () => {
    await gateway.register('dave', 'dave-pass-12');
    const session = await gateway.login('dave', 'dave-pass-12');
    expect((await gateway.call('DELETE', '/api/user/self', { session })).json().success).toBe(true);
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session })).statusCode === 401, 5_000, 'deleted session');
    expect((await gateway.call('POST', '/api/user/login', { body: { username: 'dave', password: 'dave-pass-12' } })).json().success).toBe(false);
    expect((await registerInEnglish('dave', 'dave-pass-12')).json()).toEqual({ success: false, message: 'username: already taken' });
    const root = await gateway.login('root', ROOT_PASSWORD);
    const rootDeletes = (language: string) => gateway.call('DELETE', '/api/user/self', { session: root, headers: { 'accept-language': language } });
    expect((await rootDeletes('en-US')).json()).toEqual({ success: false, message: 'the super admin cannot delete their own account' });
    expect((await rootDeletes('zh-CN')).json()).toEqual({ success: false, message: '超级管理员不能注销自己的账户' });
  });

  it('verifies emails with a code kept in kv, and resets passwords with a one-time link', async () => {
    const root = await gateway.login('root', ROOT_PASSWORD);
    // No mail server: no verification to turn on, and no code or link to ask for (refused at once, not a success that never arrives).
    expect((await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'EmailVerificationEnabled', value: 'true' } })).json()).toEqual({
      success: false,
      message: 'EmailVerificationEnabled: set SMTPServer first',
    });
    for (const route of ['/api/verification', '/api/reset_password']) {
      expect((await gateway.call('POST', route, { body: { email: 'erin@example.com' } })).json()).toEqual({
        success: false,
        message: 'this server cannot send mail: no SMTP server is set; ask the administrator',
      });
    }
    // A mail server on loopback: asking for a code waits for the mail server to take it.
    const receiver = await useLoopbackSmtp(gateway, root);
    await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'EmailVerificationEnabled', value: 'true' } });
    // The mail server cannot go while verification needs it.
    expect((await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'SMTPServer', value: '' } })).json().message).toMatch(
      /^SMTPServer: turn EmailVerificationEnabled off first/,
    );
    const withoutCode = (await gateway.register('erin', 'erin-pass-12', { email: 'erin@example.com' })).json();
    expect(withoutCode.message).toMatch(/verification_code/);

    expect((await gateway.call('POST', '/api/verification', { body: { email: 'erin@example.com' } })).json().success).toBe(true);
    const locked = (await gateway.call('POST', '/api/verification', { body: { email: 'erin@example.com' } })).json();
    expect(locked).toEqual({ success: false, message: 'please wait 30 seconds before asking again' });
    const lockedInChinese = await gateway.call('POST', '/api/verification', { body: { email: 'erin@example.com' }, headers: { 'accept-language': 'zh-CN' } });
    expect(lockedInChinese.json()).toEqual({ success: false, message: '请等待 30 秒后再重新获取' });
    await waitFor(() => mails.some((mail) => (mail.data as { to: string }).to === 'erin@example.com'), 5_000, 'verification mail');
    const code = (mails.find((mail) => (mail.data as { to: string }).to === 'erin@example.com')!.data as { params: { code: string } }).params.code;
    expect((await gateway.register('erin', 'erin-pass-12', { email: 'erin@example.com', verification_code: 'zzzzzz' })).json().success).toBe(false);
    expect((await gateway.register('erin', 'erin-pass-12', { email: 'erin@example.com', verification_code: code })).json().success).toBe(true);
    await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'EmailVerificationEnabled', value: 'false' } });

    expect((await gateway.call('POST', '/api/reset_password', { body: { email: 'nobody@example.com' } })).json().success).toBe(true);
    expect((await gateway.call('POST', '/api/reset_password', { body: { email: 'erin@example.com' } })).json().success).toBe(true);
    await waitFor(() => mails.some((mail) => (mail.data as { template: string }).template === 'password_reset'), 5_000, 'reset mail');
    expect(mails.filter((mail) => (mail.data as { template: string }).template === 'password_reset')).toHaveLength(1);
    const link = new URL(
      (mails.find((mail) => (mail.data as { template: string }).template === 'password_reset')!.data as { params: { link: string } }).params.link,
    );
    const token = link.searchParams.get('token')!;
    const reset = (await gateway.call('POST', '/api/user/reset', { body: { email: 'erin@example.com', token } })).json();
    expect(reset).toMatchObject({ success: true, data: expect.stringMatching(/^[A-Za-z0-9]{12}$/) });
    expect((await gateway.call('POST', '/api/user/reset', { body: { email: 'erin@example.com', token } })).json().success).toBe(false);
    await gateway.login('erin', reset.data);
    expect((await receiver.waitForMails(2)).map((mail) => mail.to)).toEqual([['erin@example.com'], ['erin@example.com']]);
    await receiver.stop();
  });
});
