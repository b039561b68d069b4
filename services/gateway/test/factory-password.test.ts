// Rule R8 (issue 22 item 8): a fresh instance reachable beyond loopback whose root still has the
// factory password lets root do nothing but read its profile and change the password; on
// loopback the two-command quick start stays usable (with the console's warning), and
// INITIAL_ROOT_PASSWORD avoids the lock altogether.
import { localizeMessage } from '@aigw/contracts';
import { isLoopbackHost, passwordChangeRequiredMessage } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { startGateway, type Session, type TestGateway } from './support/gateway';

const FACTORY_PASSWORD = '123456';

describe('the factory root password on a reachable address', () => {
  let gateway: TestGateway;
  let root: Session;

  beforeAll(async () => {
    gateway = await startGateway('in-process', { HOST: '0.0.0.0', INITIAL_ROOT_PASSWORD: undefined });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('says so in the login answer', async () => {
    const login = (await gateway.call('POST', '/api/user/login', { body: { username: 'root', password: FACTORY_PASSWORD } })).json();
    expect(login).toMatchObject({ success: true, data: { username: 'root', default_password: true, require_password_change: true } });
    root = await gateway.login('root', FACTORY_PASSWORD);
  });

  it('refuses everything but the own profile and the password change, with 403 naming why', async () => {
    expect((await gateway.call('GET', '/api/user/self', { session: root })).json()).toMatchObject({ success: true, data: { username: 'root' } });
    expect((await gateway.call('GET', '/api/status')).json().success).toBe(true);
    const refused = [
      await gateway.call('GET', '/api/user/', { session: root }),
      await gateway.call('GET', '/api/option/', { session: root }),
      await gateway.call('POST', '/api/token/', { session: root, body: { name: 'mine', unlimited_quota: true } }),
      await gateway.call('GET', '/api/channel/', { session: root }),
      await gateway.call('POST', '/api/user/token', { session: root }),
      await gateway.call('PUT', '/api/user/self', { session: root, body: { display_name: 'Boss' } }),
      await gateway.call('GET', '/api/token/?p=1', { session: root }),
    ];
    const english = localizeMessage(passwordChangeRequiredMessage, 'en-US');
    for (const response of refused) {
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ success: false, message: english });
    }
    expect(english).toMatch(/factory default password/);
    // A Chinese console (and one that names no language) reads it in Chinese.
    for (const locale of ['zh-CN', '']) {
      const chinese = await gateway.call('GET', '/api/user/', { session: root, headers: { 'accept-language': locale } });
      expect(chinese.json()).toEqual({ success: false, message: localizeMessage(passwordChangeRequiredMessage, 'zh-CN') });
      expect(chinese.json().message).toMatch(/^超级管理员仍在使用出厂默认密码/);
    }
    // The playground (a relay route) says it in OpenAI's shape.
    const playground = await gateway.call('POST', '/pg/chat/completions', { session: root, body: { model: 'x', messages: [] } });
    expect(playground.statusCode).toBe(403);
    expect(playground.json().error.message).toContain(english);
  });

  it('lifts the lock for the same session once the password is changed', async () => {
    const wrong = (
      await gateway.call('PUT', '/api/user/self', { session: root, body: { original_password: 'not-it-at-all', password: 'a-new-root-pass' } })
    ).json();
    expect(wrong).toEqual({ success: false, message: 'original_password: the current password is wrong' });
    const changed = await gateway.call('PUT', '/api/user/self', { session: root, body: { original_password: FACTORY_PASSWORD, password: 'a-new-root-pass' } });
    expect(changed.json()).toEqual({ success: true, message: '' });
    // The gateway drops its cached credential on the revocation event the change publishes.
    await waitFor(async () => (await gateway.call('GET', '/api/user/', { session: root })).statusCode === 200, 5_000, 'lock lifted');
    const again = (await gateway.call('POST', '/api/user/login', { body: { username: 'root', password: 'a-new-root-pass' } })).json();
    expect(again.data).toMatchObject({ default_password: false, require_password_change: false });
  });
});

describe('the factory root password on loopback', () => {
  it('keeps the quick start usable: a warning, no lock', async () => {
    const gateway = await startGateway('in-process', { HOST: '127.0.0.1', INITIAL_ROOT_PASSWORD: undefined });
    try {
      const login = (await gateway.call('POST', '/api/user/login', { body: { username: 'root', password: FACTORY_PASSWORD } })).json();
      expect(login.data).toMatchObject({ default_password: true, require_password_change: false });
      const root = await gateway.login('root', FACTORY_PASSWORD);
      expect((await gateway.call('GET', '/api/user/', { session: root })).statusCode).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('INITIAL_ROOT_PASSWORD on a reachable address', () => {
  it('starts root with that password and no lock', async () => {
    const gateway = await startGateway('in-process', { HOST: '0.0.0.0', INITIAL_ROOT_PASSWORD: 'chosen-root-pass' });
    try {
      expect((await gateway.call('POST', '/api/user/login', { body: { username: 'root', password: FACTORY_PASSWORD } })).json().success).toBe(false);
      const login = (await gateway.call('POST', '/api/user/login', { body: { username: 'root', password: 'chosen-root-pass' } })).json();
      expect(login.data).toMatchObject({ default_password: false, require_password_change: false });
    } finally {
      await gateway.close();
    }
  });
});

describe('listen addresses', () => {
  it('tells loopback from reachable ones', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect([host, isLoopbackHost(host)]).toEqual([host, true]);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '::ffff:10.0.0.1', ''])
      expect([host, isLoopbackHost(host)]).toEqual([host, false]);
  });
});
