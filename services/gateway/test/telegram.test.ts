import { signTelegramFields } from '../../identity/test/support/telegram';
import { ROOT_PASSWORD, startGateway, type TestGateway } from './support/gateway';

describe('Telegram login and binding (in-process)', () => {
  let gateway: TestGateway;
  const botToken = '123456:TEST-bot-token';
  /** The widget's signed answer, which the console posts to login and bind. */
  const signed = (id: string) => signTelegramFields({ id, first_name: 'Ann', auth_date: String(Math.floor(Date.now() / 1000)) }, botToken);

  beforeAll(async () => {
    gateway = await startGateway('in-process');
    const root = await gateway.login('root', ROOT_PASSWORD);
    await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'TelegramBotName', value: 'test_bot' } });
    await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'TelegramBotToken', value: botToken } });
    expect((await gateway.call('PUT', '/api/option/', { session: root, body: { key: 'TelegramOAuthEnabled', value: 'true' } })).json().success).toBe(true);
    await gateway.register('ann', 'ann-password');
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('logs in only accounts that bound Telegram, after binding from a session', async () => {
    const before = (await gateway.call('POST', '/api/oauth/telegram/login', { body: signed('777') })).json();
    expect(before).toEqual({ success: false, message: 'this Telegram account is not bound to a user; bind it from the settings page first' });
    const inChinese = await gateway.call('POST', '/api/oauth/telegram/login', { body: signed('777'), headers: { 'accept-language': 'zh-CN' } });
    expect(inChinese.json()).toEqual({ success: false, message: '此 Telegram 账户未绑定用户，请先在个人设置页面绑定' });

    const session = await gateway.login('ann', 'ann-password');
    expect((await gateway.call('POST', '/api/oauth/telegram/bind', { session, body: signed('777') })).json().success).toBe(true);
    expect((await gateway.call('GET', '/api/user/self', { session })).json().data.telegram_id).toBe('777');

    const login = await gateway.call('POST', '/api/oauth/telegram/login', { body: signed('777') });
    expect(login.json()).toMatchObject({ success: true, data: { username: 'ann' } });
    expect(login.cookies.find((cookie) => cookie.name === 'session')).toBeDefined();
  });

  it('refuses a forged widget answer and a Telegram account bound to someone else', async () => {
    const forged = { ...signed('777'), first_name: 'Eve' };
    expect((await gateway.call('POST', '/api/oauth/telegram/login', { body: forged })).json().message).toBe('Telegram authorization is invalid or has expired');
    // A malformed one names its field.
    const malformed = { ...signed('777'), hash: 'not-hex' };
    expect((await gateway.call('POST', '/api/oauth/telegram/login', { body: malformed })).json().message).toBe('hash: must be 64 hex characters');
    const malformedInChinese = await gateway.call('POST', '/api/oauth/telegram/login', { body: malformed, headers: { 'accept-language': 'zh-CN' } });
    expect(malformedInChinese.json().message).toBe('hash: 必须是 64 位十六进制字符');
    await gateway.register('bob', 'bob-password');
    const bob = await gateway.login('bob', 'bob-password');
    expect((await gateway.call('POST', '/api/oauth/telegram/bind', { session: bob, body: signed('777') })).json().message).toMatch(/already bound/);
  });

  it('tells a deregistered user that the account was deleted', async () => {
    await gateway.register('cora', 'cora-password');
    const cora = await gateway.login('cora', 'cora-password');
    expect((await gateway.call('POST', '/api/oauth/telegram/bind', { session: cora, body: signed('888') })).json().success).toBe(true);
    expect((await gateway.call('DELETE', '/api/user/self', { session: cora })).json().success).toBe(true);
    const login = (await gateway.call('POST', '/api/oauth/telegram/login', { body: signed('888') })).json();
    expect(login).toEqual({ success: false, message: 'the account has been deleted' });
  });
});
