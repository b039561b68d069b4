// Users' own notices by the method each chose (PUT /api/user/setting): a low-balance drop reaches
// the user's webhook (signed), Bark, Gotify and WxPusher (bound by QR code), each a loopback fake
// speaking that service's API; the per-user notification limit; validation of the settings. The
// all-in-one gateway on both backends (in-process; PostgreSQL + NATS + BullMQ/Redis).
import { randomUUID } from 'node:crypto';
import { publishEvent } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../gateway/test/support/gateway';
import { signWebhook } from '../src/domain/webhook-signature';
import { DeliveryEntity } from '../src/entities/index';
import { openNotifierDatabase, setOptions } from './support/mail-world';
import { startReceiver, type Receiver } from './support/webhooks';
import { startBark, startGotify, startWxPusher, type WxPusherFake } from './support/notice-fakes';
import type { DataSource } from 'typeorm';

const WXPUSHER_TOKEN = 'AT_notifier_test_token';
const BARK_KEY = 'barkDeviceKey42';
const GOTIFY_TOKEN = 'AzGotifyAppToken';
const SYSTEM_NAME = 'Notice Gate';

describe.each(backends)('user notices (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  let db: DataSource;
  let receiver: Receiver;
  let bark: Awaited<ReturnType<typeof startBark>>;
  let gotify: Awaited<ReturnType<typeof startGotify>>;
  let wxpusher: WxPusherFake;
  let userCount = 0;

  beforeAll(async () => {
    [receiver, bark, gotify, wxpusher] = await Promise.all([startReceiver({}), startBark(BARK_KEY), startGotify(GOTIFY_TOKEN), startWxPusher(WXPUSHER_TOKEN)]);
    gateway = await startGateway(backend, { WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_ATTEMPTS: '3', WEBHOOK_BACKOFF_MS: '100' });
    root = await gateway.login('root', ROOT_PASSWORD);
    db = await openNotifierDatabase(gateway.env);
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
    await Promise.all([receiver?.close(), bark?.close(), gotify?.close(), wxpusher?.close()]);
  });

  const call = (...args: Parameters<TestGateway['call']>) => gateway.call(...args);
  const newUser = async (): Promise<Session> => {
    const name = `notice${backend === 'real' ? 'r' : 'm'}${++userCount}`;
    expect((await gateway.register(name, `${name}-password`)).json().success).toBe(true);
    return gateway.login(name, `${name}-password`);
  };
  const putSetting = async (session: Session, body: Record<string, unknown>) => (await call('PUT', '/api/user/setting', { session, body })).json();
  /** A settled request that takes the user from 1,000,000 to 100,000, below the threshold. */
  const dropBalance = async (user: Session) => {
    expect((await call('PUT', '/api/user/', { session: root, body: { id: user.id, quota: 1_000_000 } })).json().success).toBe(true);
    await publishEvent(gateway.env.infra.bus, 'relay.usage.recorded', {
      request_id: randomUUID(),
      user_id: user.id,
      token_id: 0,
      token_name: '',
      model_name: 'gpt-4o',
      group: 'default',
      channel_id: 1,
      prompt_tokens: 10,
      completion_tokens: 10,
      quota: 900_000,
      use_time_ms: 100,
      is_stream: false,
      created_at: Math.floor(Date.now() / 1000),
      content: '',
      other: {},
    });
  };
  const notices = () => db.getRepository(DeliveryEntity).find({ where: { kind: 'notice' }, order: { id: 'ASC' } });

  describe('settings', () => {
    it('refuses a private address while root has not allowed private upstreams (rule R1)', async () => {
      const user = await newUser();
      const answer = await putSetting(user, { notify_type: 'bark', bark_url: `${bark.url}/${BARK_KEY}` });
      expect(answer.success).toBe(false);
      expect(answer.message).toMatch(/^bark_url: egress blocked: 127\.0\.0\.1 is a loopback address/);
    });

    it('names each bad field', async () => {
      const user = await newUser();
      const bad = async (body: Record<string, unknown>, message: RegExp) => {
        const answer = await putSetting(user, body);
        expect([answer.success, answer.message]).toEqual([false, expect.stringMatching(message)]);
      };
      await bad({ notify_type: 'sms' }, /^notify_type must be one of email, webhook, bark, gotify, wxpusher/);
      await bad({ notify_type: 'email', quota_warning_threshold: -1 }, /^quota_warning_threshold must not be negative/);
      await bad({ notify_type: 'gotify', gotify_url: 'https://push.example.com', gotify_priority: 11 }, /^gotify_priority must be 0 to 10/);
      await bad({ notify_type: 'webhook', webhook_url: 'ftp://hooks.example.com/x' }, /^webhook_url must be an http\(s\) URL/);
      await bad({ notify_type: 'webhook', webhook_url: 'https://user:pw@hooks.example.com/x' }, /webhook_url must be an http\(s\) URL without user name/);
      await bad({ notify_type: 'email', notification_email: 'not-an-address' }, /^notification_email must be an email address/);
      await bad({ notify_type: 'bark' }, /^bark_url is required for Bark notifications$/);
      await bad({ notify_type: 'gotify', gotify_url: 'https://push.example.com' }, /^gotify_token is required for Gotify notifications$/);
      await bad({ notify_type: 'wxpusher' }, /^bind WxPusher first/);
      await bad({ notify_type: 'gotify' }, /^gotify_url is required for Gotify notifications; gotify_token is required for Gotify notifications$/);
    });

    it("words the refusals in the caller's language", async () => {
      const user = await newUser();
      const inChinese = async (body: Record<string, unknown>) =>
        (await call('PUT', '/api/user/setting', { session: user, body, headers: { 'accept-language': 'zh-CN' } })).json().message;
      expect(await inChinese({ notify_type: 'bark' })).toMatch(/^[^a-z]*Bark[^a-z]+bark_url$/);
      expect(await inChinese({ notify_type: 'email', quota_warning_threshold: -1 })).toBe('quota_warning_threshold 不能为负数');
      expect(await inChinese({ notify_type: 'webhook', webhook_url: 'ftp://hooks.example.com/x' })).toBe(
        'webhook_url 必须是 http(s) 网址，且不能包含用户名或密码',
      );
      expect(await inChinese({ notify_type: 'bark', bark_url: `${bark.url}/${BARK_KEY}` })).toMatch(
        /^bark_url: 出站请求已拦截：127\.0\.0\.1 属于 loopback 地址段/,
      );
    });
  });

  describe('delivery', () => {
    beforeAll(async () => {
      // The fakes are on loopback: root's switch lets users' URLs (and WxPusher) reach them.
      await setOptions(gateway, root, {
        WxPusherAppToken: WXPUSHER_TOKEN,
        SystemName: SYSTEM_NAME,
        WxPusherBaseUrl: wxpusher.url,
        QuotaRemindThreshold: 250_000,
        DisplayInCurrencyEnabled: true,
        QuotaPerUnit: 500_000,
        AllowPrivateNetworkUpstreams: true,
      });
    });

    it('webhook: a signed POST in the established product shape; the secret is never answered', async () => {
      const user = await newUser();
      const secret = 'user-webhook-secret-0123456789';
      const saved = await putSetting(user, { notify_type: 'webhook', webhook_url: receiver.url('/user-hook'), webhook_secret: secret });
      expect(saved.success).toBe(true);
      expect(saved.data).toMatchObject({ notify_type: 'webhook', webhook_secret_set: true });
      expect(JSON.stringify((await call('GET', '/api/user/setting', { session: user })).json())).not.toContain(secret);

      await dropBalance(user);
      await waitFor(() => receiver.on('/user-hook').length > 0, 10_000, 'the webhook notice');
      const [received] = receiver.on('/user-hook');
      const body = JSON.parse(received!.body);
      expect(body).toMatchObject({ type: 'low_balance', title: `${SYSTEM_NAME}：您的额度即将用尽`, values: [] });
      expect(body.content).toContain('当前剩余额度为 $0.20（提醒阈值 $0.50）');
      const timestamp = Number(received!.headers['x-webhook-timestamp']);
      expect(received!.headers['x-webhook-subject']).toBe('user.notice');
      expect(received!.headers['x-webhook-signature']).toBe(signWebhook(secret, timestamp, received!.body));
      await waitFor(
        async () => (await notices()).some((row) => row.status === 'sent' && row.target.startsWith('webhook 127.0.0.1')),
        5_000,
        'the notice recorded as sent',
      );
    });

    it('Bark: the URL template is filled in, URL-encoded, and fetched', async () => {
      const user = await newUser();
      const template = `${bark.url}/${BARK_KEY}/{{title}}/{{content}}?group=aigw`;
      expect((await putSetting(user, { notify_type: 'bark', bark_url: template })).success).toBe(true);
      await dropBalance(user);
      await waitFor(() => bark.requests.length > 0, 10_000, 'the Bark push');
      const [push] = bark.requests;
      expect(push!.method).toBe('GET');
      const [, key, title, content] = push!.url.split('?')[0]!.split('/');
      expect(key).toBe(BARK_KEY);
      expect(decodeURIComponent(title!)).toBe(`${SYSTEM_NAME}：您的额度即将用尽`);
      expect(decodeURIComponent(content!)).toContain('$0.20');
      expect(push!.url.endsWith('?group=aigw')).toBe(true);
    });

    it("Gotify: POST /message with the app token, the title, the message and the user's priority", async () => {
      const user = await newUser();
      const saved = await putSetting(user, { notify_type: 'gotify', gotify_url: `${gotify.url}/`, gotify_token: GOTIFY_TOKEN, gotify_priority: 8 });
      expect(saved.success).toBe(true);
      expect(saved.data).toMatchObject({ gotify_token_set: true, gotify_priority: 8 });
      expect(saved.data).not.toHaveProperty('gotify_token');
      // Saved again without the token: the stored one is kept.
      expect((await putSetting(user, { notify_type: 'gotify', gotify_url: gotify.url, gotify_priority: 8 })).success).toBe(true);
      await dropBalance(user);
      await waitFor(() => gotify.requests.length > 0, 10_000, 'the Gotify message');
      const [message] = gotify.requests;
      expect(message!.method).toBe('POST');
      expect(message!.url).toBe(`/message?token=${GOTIFY_TOKEN}`);
      expect(JSON.parse(message!.body)).toEqual({
        title: `${SYSTEM_NAME}：您的额度即将用尽`,
        message: expect.stringContaining('$0.20'),
        priority: 8,
        extras: { 'client::display': { contentType: 'text/plain' } },
      });
      // The target names the method and host only: the token stays in the sealed payload.
      const row = (await notices()).find((notice) => notice.target.startsWith('gotify'));
      expect(row?.target).toBe(`gotify ${new URL(gotify.url).host}`);
      expect(row?.payload).not.toContain(GOTIFY_TOKEN);
    });

    it('WxPusher: bound by scanning a QR code (a fresh one on request; only its own user may bind with it), then messaged by uid', async () => {
      const user = await newUser();
      const first = (await call('GET', '/api/user/wxpusher/qrcode', { session: user })).json();
      expect(first.success).toBe(true);
      expect(first.data).toEqual({ url: expect.stringContaining('showqrcode'), code: expect.any(String), expires_at: expect.any(Number) });
      expect(first.data.expires_at).toBeGreaterThan(Date.now());
      expect(wxpusher.qrCodes.at(-1)).toMatchObject({ extra: expect.stringMatching(new RegExp(`^aigw-user-${user.id}-`)), validTime: 1800 });
      // Not scanned yet: nothing bound. Another user cannot bind with this code.
      expect((await call('POST', '/api/user/wxpusher/bind', { session: user, body: { code: first.data.code } })).json().data).toEqual({ bound: false });
      const other = await newUser();
      expect((await call('POST', '/api/user/wxpusher/bind', { session: other, body: { code: first.data.code } })).json()).toMatchObject({
        success: false,
        message: 'this QR code has expired or is not yours: fetch a new one',
      });
      const inChinese = await call('POST', '/api/user/wxpusher/bind', {
        session: other,
        body: { code: first.data.code },
        headers: { 'accept-language': 'zh-CN' },
      });
      expect(inChinese.json()).toMatchObject({ success: false, message: '二维码已过期或不属于你，请重新获取' });

      // A fresh code (the console's "refresh"), scanned in WeChat.
      const second = (await call('GET', '/api/user/wxpusher/qrcode', { session: user })).json().data;
      expect(second.code).not.toBe(first.data.code);
      wxpusher.scan(second.code, 'UID_scanned42');
      expect((await call('POST', '/api/user/wxpusher/bind', { session: user, body: { code: second.code } })).json().data).toEqual({ bound: true });
      expect((await call('GET', '/api/user/setting', { session: user })).json().data.wxpusher_uid).toBe('UID_scanned42');

      expect((await putSetting(user, { notify_type: 'wxpusher' })).success).toBe(true);
      await dropBalance(user);
      const sends = () => wxpusher.requests.filter((request) => request.url === '/api/send/message');
      await waitFor(() => sends().length > 0, 10_000, 'the WxPusher message');
      expect(JSON.parse(sends()[0]!.body)).toEqual({
        appToken: WXPUSHER_TOKEN,
        content: expect.stringContaining('$0.20'),
        summary: `${SYSTEM_NAME}：您的额度即将用尽`,
        contentType: 1,
        uids: ['UID_scanned42'],
      });
      await waitFor(async () => (await notices()).some((row) => row.target === 'wxpusher UID_scanned42' && row.status === 'sent'), 5_000, 'sent');

      // Unbinding switches the notices back to mail.
      expect((await call('DELETE', '/api/user/wxpusher', { session: user })).json().success).toBe(true);
      expect((await call('GET', '/api/user/setting', { session: user })).json().data).toMatchObject({ wxpusher_uid: '', notify_type: 'email' });
    });

    it('at most NotifyLimitCount notices of one kind per user in the window: the third channel alert to root is not sent', async () => {
      const barkTemplate = `${bark.url}/${BARK_KEY}/{{title}}/{{content}}`;
      expect((await putSetting(root, { notify_type: 'bark', bark_url: barkTemplate })).success).toBe(true);
      await setOptions(gateway, root, { AutomaticDisableChannelEnabled: true });
      const alerts = () => bark.requests.filter((request) => decodeURIComponent(request.url).includes('已被禁用'));
      const disabled: number[] = [];
      for (const name of ['alpha', 'beta', 'gamma']) {
        const created = (
          await call('POST', '/api/channel/', {
            session: root,
            body: { type: 1, name: `limit-${name}`, group: 'default', models: 'gpt-4o', key: `sk-limit-${name}` },
          })
        ).json();
        expect(created.success).toBe(true);
        const channelId = created.data.ids[0] as number;
        await publishEvent(gateway.env.infra.bus, 'relay.channel.failed', {
          channel_id: channelId,
          request_id: randomUUID(),
          status_code: 401,
          error_code: '',
          error_type: '',
          message: 'Incorrect API key',
          test: false,
        });
        disabled.push(channelId);
        // Each alert is counted before the next channel fails, so the third is the one over the limit.
        const counted = async () => Number(await gateway.env.infra.kv.get(`notifier:notify-limit:${root.id}:channel_disabled`));
        await waitFor(async () => (await counted()) === disabled.length, 10_000, `alert ${disabled.length} counted`);
      }
      await waitFor(() => alerts().length === 2, 10_000, 'two alerts');
      expect(alerts().map((request) => decodeURIComponent(request.url))).toEqual([
        expect.stringContaining(`（#${disabled[0]}）已被禁用`),
        expect.stringContaining(`（#${disabled[1]}）已被禁用`),
      ]);
      // The third was counted and dropped: no delivery row was written for it.
      const rows = (await notices()).filter((row) => row.topic === 'channel_disabled');
      expect(rows).toHaveLength(2);
      const ttl = await gateway.env.infra.kv.ttl(`notifier:notify-limit:${root.id}:channel_disabled`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(10 * 60_000);
    });
  });
});
