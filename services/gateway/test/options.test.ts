import { backends, waitFor } from '@aigw/platform/testing';
import type { BusEvent } from '@aigw/platform';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from './support/gateway';

describe.each(backends)('options (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  const events: BusEvent[] = [];

  beforeAll(async () => {
    gateway = await startGateway(backend);
    root = await gateway.login('root', ROOT_PASSWORD);
    await gateway.env.infra.bus.subscribe('identity.option.updated', async (event) => void events.push(event), {});
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const put = (key: string, value: unknown) => gateway.call('PUT', '/api/option/', { session: root, body: { key, value } });
  const rows = async () =>
    Object.fromEntries(
      ((await gateway.call('GET', '/api/option/', { session: root })).json().data as Array<{ key: string; value: string }>).map((row) => [row.key, row.value]),
    );

  it('lists every option as strings, never a secret', async () => {
    const options = await rows();
    expect(options).toMatchObject({ QuotaPerUnit: '500000', RegisterEnabled: 'true', GroupRatio: '{"default":1,"vip":1,"svip":1}', SMTPPort: '587' });
    for (const secret of ['SMTPToken', 'GitHubClientSecret', 'EpayKey', 'TurnstileSecretKey', 'WeChatServerToken', 'TelegramBotToken']) {
      expect(options).not.toHaveProperty(secret);
    }
  });

  it('validates per key, naming it, and stores nothing on failure', async () => {
    expect((await put('NoSuchKey', 'x')).json()).toEqual({ success: false, message: "key: unknown option 'NoSuchKey'" });
    expect((await put('RegisterEnabled', 'maybe')).json().message).toBe('RegisterEnabled: expected true or false');
    expect((await put('QuotaForNewUser', 'lots')).json().message).toBe('QuotaForNewUser: expected a number');
    expect((await put('GroupRatio', '{bad json')).json().message).toBe('GroupRatio: not a legal JSON string');
    // Address options take http(s) URLs only: a client can use nothing else as a base.
    for (const bad of ['ftp://x', 'javascript:alert(1)', 'gw.example.com']) {
      expect((await put('ServerAddress', bad)).json().message).toBe('ServerAddress: expected an http(s) URL');
    }
    expect((await put('CustomCallbackAddress', 'file:///etc/passwd')).json().message).toBe('CustomCallbackAddress: expected an http(s) URL');
    // In the caller's language, the key named as it is.
    const inChinese = (key: string, value: unknown) =>
      gateway.call('PUT', '/api/option/', { session: root, body: { key, value }, headers: { 'accept-language': 'zh-CN' } });
    expect((await inChinese('ServerAddress', 'ftp://x')).json()).toEqual({ success: false, message: 'ServerAddress: 必须是 http(s) 网址' });
    expect((await inChinese('NoSuchKey', 'x')).json()).toEqual({ success: false, message: 'key: 未知的设置项 “NoSuchKey”' });
    expect((await inChinese('RegisterEnabled', 'maybe')).json().message).toBe('RegisterEnabled: 必须是 true 或 false');
    expect((await inChinese('GitHubOAuthEnabled', 'true')).json().message).toBe('GitHubOAuthEnabled: 请先设置 GitHubClientId, GitHubClientSecret');
    // A check of the schema without words of its own is worded by the catalogue too, not by zod.
    expect((await put('QuotaForNewUser', -1)).json().message).toBe('QuotaForNewUser: must be at least 0');
    expect((await inChinese('QuotaForNewUser', -1)).json().message).toBe('QuotaForNewUser: 不能小于 0');
    expect((await put('GroupRatio', '{"vip":-1}')).json().message).toMatch(/^GroupRatio\.vip: /);
    expect((await put('GitHubOAuthEnabled', 'true')).json().message).toBe('GitHubOAuthEnabled: set GitHubClientId, GitHubClientSecret first');
    expect((await gateway.call('PUT', '/api/option/', { session: root, body: { value: 'x' } })).json().message).toMatch(/^key/);
    expect(await rows()).toMatchObject({
      RegisterEnabled: 'true',
      QuotaForNewUser: '0',
      GroupRatio: '{"default":1,"vip":1,"svip":1}',
      GitHubOAuthEnabled: 'false',
    });
  });

  it('applies typed values, publishes them after commit, and keeps secrets write-only', async () => {
    expect((await put('QuotaForNewUser', 1000)).json().success).toBe(true);
    expect((await put('SystemName', 'My Gateway')).json().success).toBe(true);
    expect((await put('ServerAddress', 'https://gw.example.com/')).json().success).toBe(true);
    expect((await put('SMTPToken', 'CANARY-smtp-secret')).json().success).toBe(true);
    const options = await rows();
    expect(options).toMatchObject({ QuotaForNewUser: '1000', SystemName: 'My Gateway', ServerAddress: 'https://gw.example.com' });
    expect(JSON.stringify(options)).not.toContain('CANARY');
    expect((await gateway.call('GET', '/api/status')).json().data).toMatchObject({ system_name: 'My Gateway', server_address: 'https://gw.example.com' });

    await waitFor(() => events.some((event) => (event.data as { key: string }).key === 'SMTPToken'), 5_000, 'secret event');
    const secretEvent = events.find((event) => (event.data as { key: string }).key === 'SMTPToken')!;
    expect(secretEvent.data).toEqual({ key: 'SMTPToken', value: null, secret: true, version: 1 });
    expect(events.find((event) => (event.data as { key: string }).key === 'SystemName')!.data).toEqual({
      key: 'SystemName',
      value: 'My Gateway',
      secret: false,
      version: 1,
    });
  });

  it('reaches the other services: their mirrors apply the change', async () => {
    expect((await put('SystemName', 'Mirrored')).json().success).toBe(true);
    for (const service of ['billing', 'channels', 'relay', 'notifier']) {
      await waitFor(
        async () => (await gateway.call('GET', `/internal/${service}/options`, { session: root })).json().data.SystemName === 'Mirrored',
        5_000,
        `${service} mirror`,
      );
    }
    const view = (await gateway.call('GET', '/internal/billing/options', { session: root })).json().data;
    expect(view).not.toHaveProperty('SMTPToken');
  });

  it('resets the model ratios', async () => {
    await put('ModelRatio', '{"only-model":3}');
    expect((await rows()).ModelRatio).toBe('{"only-model":3}');
    expect((await gateway.call('POST', '/api/option/rest_model_ratio', { session: root })).json().success).toBe(true);
    expect(JSON.parse((await rows()).ModelRatio ?? '')).toMatchObject({ 'gpt-4o': 1.25 });
  });

  it('is for root only', async () => {
    await gateway.register('admin2', 'admin2-password');
    const admin = await gateway.login('admin2', 'admin2-password');
    await gateway.call('POST', '/api/user/manage', { session: root, body: { id: admin.id, action: 'promote' } });
    expect((await gateway.call('GET', '/api/option/', { session: admin })).statusCode).toBe(403);
    expect((await gateway.call('POST', '/api/option/rest_model_ratio', { session: admin })).statusCode).toBe(403);
    expect((await gateway.call('GET', '/api/option/')).statusCode).toBe(401);
  });
});
