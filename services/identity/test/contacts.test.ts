import { defaultNotificationSettings } from '@aigw/contracts';
import { requestTyped } from '@aigw/platform';
import { backends } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';

describe.each(backends)('user contacts and languages for the notifier (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const contacts = (payload: { user_ids?: number[]; roots?: boolean }) =>
    requestTyped(gateway.env.infra.bus, 'identity.user.contacts', { user_ids: payload.user_ids ?? [], roots: payload.roots ?? false });
  const register = async (name: string, acceptLanguage?: string) => {
    const headers = { 'accept-language': acceptLanguage ?? '' };
    const answer = await gateway.call('POST', '/api/user/register', {
      body: { username: name, password: `${name}-password`, password2: `${name}-password` },
      headers,
    });
    expect(answer.json().success).toBe(true);
    return gateway.login(name, `${name}-password`);
  };

  it('keeps the language of registration and of the latest sign-in; unknown reads as zh-CN', async () => {
    const english = await register('lang-en', 'en-US,en;q=0.9');
    const silent = await register('lang-none');
    await gateway.call('PUT', '/api/user/', { session: root, body: { id: english.id, email: 'lang-en@example.com' } });
    expect((await contacts({ user_ids: [english.id, silent.id] })).contacts).toEqual([
      {
        user_id: english.id,
        username: 'lang-en',
        display_name: 'lang-en',
        email: 'lang-en@example.com',
        role: 1,
        locale: 'en-US',
        notification: defaultNotificationSettings,
      },
      { user_id: silent.id, username: 'lang-none', display_name: 'lang-none', email: '', role: 1, locale: 'zh-CN', notification: defaultNotificationSettings },
    ]);

    // A sign-in from a console set to another language moves the user's mails to it; one without the header changes nothing.
    expect(
      (
        await gateway.call('POST', '/api/user/login', { body: { username: 'lang-none', password: 'lang-none-password' }, headers: { 'accept-language': 'en' } })
      ).json().success,
    ).toBe(true);
    expect(
      (
        await gateway.call('POST', '/api/user/login', { body: { username: 'lang-en', password: 'lang-en-password' }, headers: { 'accept-language': 'zh-CN' } })
      ).json().success,
    ).toBe(true);
    await gateway.login('lang-en', 'lang-en-password');
    expect((await contacts({ user_ids: [english.id, silent.id] })).contacts.map((contact) => contact.locale)).toEqual(['zh-CN', 'en-US']);
  });

  it('lists every enabled root with `roots`, and never a deregistered user', async () => {
    const leaving = await register('lang-gone', 'en-US');
    expect((await gateway.call('POST', '/api/user/manage', { session: root, body: { id: leaving.id, action: 'delete' } })).json().success).toBe(true);
    const answer = await contacts({ user_ids: [leaving.id, 999_999], roots: true });
    expect(answer.contacts).toEqual([expect.objectContaining({ user_id: root.id, username: 'root', role: 100 })]);
  });
});
