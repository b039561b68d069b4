// Real email end to end: identity's verification and reset flows, billing's low-balance warning and
// channels' disable alert, each through the all-in-one gateway to a real SMTP server on loopback,
// on both backends (in-process; PostgreSQL + NATS + BullMQ/Redis).
import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '@aigw/contracts';
import { createApp, createInfrastructure, createSilentLogger, publishEvent, type Infrastructure } from '@aigw/platform';
import { backends, testServices, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD } from '../../gateway/test/support/gateway';
import notifierPlugin from '../src/plugin';
import { LOW_BALANCE_EVERY_MS } from '../src/mail/consumers';
import { collectEvents, SERVER_ADDRESS, setOptions, SMTP, startMailWorld, type MailWorld } from './support/mail-world';
import type { ReceivedMail } from './support/smtp-receiver';

const SYSTEM_NAME = 'Gate <&> "AI"';
const ESCAPED_NAME = 'Gate &#60;&#38;&#62; &#34;AI&#34;';

describe.each(backends)('mail (%s)', (backend) => {
  let world: MailWorld;

  beforeAll(async () => {
    world = await startMailWorld(backend);
    await setOptions(world.gateway, world.root, { SystemName: SYSTEM_NAME });
  });
  afterAll(async () => {
    await world?.close();
  });

  const call = (...args: Parameters<MailWorld['gateway']['call']>) => world.gateway.call(...args);
  /** The one mail to `address` (waits for it; fails on a second). */
  const onlyMailTo = async (address: string): Promise<ReceivedMail> => {
    await waitFor(() => world.mailsTo(address).length > 0, 10_000, `a mail to ${address}`);
    expect(world.mailsTo(address)).toHaveLength(1);
    return world.mailsTo(address)[0]!;
  };

  it('a verification code arrives in the console language (en-US), through SMTP AUTH, and registers the user', async () => {
    await setOptions(world.gateway, world.root, { EmailVerificationEnabled: true });
    const address = `alice-${backend}@example.com`;
    const asked = await call('POST', '/api/verification', { body: { email: address }, headers: { 'accept-language': 'en-US,en;q=0.9' } });
    expect(asked.json()).toMatchObject({ success: true });

    const mail = await onlyMailTo(address);
    expect(mail).toMatchObject({ user: SMTP.account, password: SMTP.token, subject: `${SYSTEM_NAME} email verification` });
    expect(mail.from).toBe(`"Gate <&> \\"AI\\"" <${SMTP.from}>`); // SystemName as the sender's name, quoted
    const code = /Your verification code is: (\w+)/.exec(mail.text)?.[1];
    expect(code).toMatch(/^[0-9a-f]{6}$/);
    expect(mail.text).toContain('valid for 10 minutes');
    // Parameters are escaped in the HTML part; the code stands out.
    expect(mail.html).toContain(`verifying your email address for ${ESCAPED_NAME}.`);
    expect(mail.html).toContain(`<strong>${code}</strong>`);
    expect(mail.html).not.toContain(SYSTEM_NAME);

    const registered = await call('POST', '/api/user/register', {
      body: {
        username: `alice${backend === 'real' ? 'r' : 'm'}`,
        password: 'alice-password',
        password2: 'alice-password',
        email: address,
        verification_code: code,
      },
    });
    expect(registered.json()).toMatchObject({ success: true });
    await setOptions(world.gateway, world.root, { EmailVerificationEnabled: false });
    const rows = (await world.deliveries()).filter((row) => row.target === address);
    expect(rows).toEqual([expect.objectContaining({ topic: 'verification_code', status: 'sent', attempts: 1, last_error: '' })]);
  });

  it('a Chinese console gets the mail in zh-CN (the default, also without Accept-Language)', async () => {
    for (const [address, headers] of [
      [`chen-${backend}@example.com`, { 'accept-language': 'zh-CN,zh;q=0.9' }],
      [`wang-${backend}@example.com`, { 'accept-language': '' }],
    ] as const) {
      expect((await call('POST', '/api/verification', { body: { email: address }, headers })).json().success).toBe(true);
      const mail = await onlyMailTo(address);
      expect(mail.subject).toBe(`${SYSTEM_NAME}邮箱验证邮件`);
      expect(mail.text).toMatch(/您的验证码为：[0-9a-f]{6}/);
      expect(mail.text).toContain('验证码 10 分钟内有效');
    }
  });

  it('a password-reset link to ServerAddress + the reset page arrives, and resets the password', async () => {
    const username = `reset${backend === 'real' ? 'r' : 'm'}`;
    const address = `${username}@example.com`;
    expect((await world.gateway.register(username, 'old-password')).json().success).toBe(true);
    const user = await world.gateway.login(username, 'old-password');
    expect((await call('PUT', '/api/user/', { session: world.root, body: { id: user.id, email: address } })).json().success).toBe(true);

    // A Chinese console asks: the mail is in zh-CN.
    expect((await call('POST', '/api/reset_password', { body: { email: address }, headers: { 'accept-language': 'zh-CN' } })).json().success).toBe(true);
    const mail = await onlyMailTo(address);
    expect(mail.subject).toBe(`${SYSTEM_NAME}密码重置`);
    const link = new RegExp(`${SERVER_ADDRESS}/user/reset\\?email=[^\\s)]+&token=[0-9a-f]{32}`).exec(mail.text)?.[0];
    expect(link).toBeDefined();
    expect(mail.text).toContain('重置链接 15 分钟内有效');
    // The link is an anchor in the HTML, escaped (&amp; in the query).
    expect(mail.html).toContain(`<a href="${link!.replace(/&/g, '&#38;')}">此处</a>`);

    const url = new URL(link!);
    const reset = (await call('POST', '/api/user/reset', { body: { email: url.searchParams.get('email'), token: url.searchParams.get('token') } })).json();
    expect(reset.success).toBe(true);
    await world.gateway.login(username, reset.data);
  });

  it("an automatic channel disable alerts root at the email root bound, in root's language", async () => {
    const rootAddress = `root-${backend}@example.com`;
    const language = backend === 'real' ? 'en-US' : 'zh-CN';
    // Root signs in from a console in that language, then binds an email with a code sent by mail.
    const { root } = world;
    expect(
      (await call('POST', '/api/user/login', { body: { username: 'root', password: ROOT_PASSWORD }, headers: { 'accept-language': language } })).json().success,
    ).toBe(true);
    expect((await call('POST', '/api/verification', { body: { email: rootAddress } })).json().success).toBe(true);
    const codeMail = await onlyMailTo(rootAddress);
    const code = /([0-9a-f]{6})/.exec(codeMail.text)![1]!;
    expect((await call('POST', '/api/oauth/email/bind', { session: root, body: { email: rootAddress, code } })).json().success).toBe(true);

    await setOptions(world.gateway, root, { AutomaticDisableChannelEnabled: true });
    const created = (
      await call('POST', '/api/channel/', { session: root, body: { type: 1, name: 'north <1>', group: 'default', models: 'gpt-4o', key: 'sk-mail-test' } })
    ).json();
    expect(created.success).toBe(true);
    const channelId = created.data.ids[0] as number;
    await publishEvent(world.gateway.env.infra.bus, 'relay.channel.failed', {
      channel_id: channelId,
      request_id: randomUUID(),
      status_code: 401,
      error_code: '',
      error_type: '',
      message: 'Incorrect API key',
      test: false,
    });

    await waitFor(() => world.mailsTo(rootAddress).length === 2, 10_000, 'the alert to root');
    const alert = world.mailsTo(rootAddress)[1]!;
    if (language === 'en-US') {
      expect(alert.subject).toBe(`Channel "north <1>" (#${channelId}) has been disabled`);
      expect(alert.text).toContain('Reason: status 401: Incorrect API key');
      expect(alert.text).toMatch(/Disabled at: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    } else {
      expect(alert.subject).toBe(`通道「north <1>」（#${channelId}）已被禁用`);
      expect(alert.text).toContain('已被禁用，原因：status 401: Incorrect API key');
    }
    expect(alert.html).toContain('north &#60;1&#62;');
  });

  describe('low balance', () => {
    /** Another notifier on the same namespace: a second replica (real backend only). */
    let replica: { infra: Infrastructure; close(): Promise<void> } | undefined;

    beforeAll(async () => {
      if (backend !== 'real') return;
      const env = world.gateway.env;
      const services = await testServices();
      const logger = createSilentLogger();
      const infra = await createInfrastructure({ NAMESPACE: env.namespace, NATS_URL: services.natsUrl, REDIS_URL: services.redisUrl }, logger);
      const app = createApp({ logger, bodyLimitBytes: 1_048_576 });
      await app.register(notifierPlugin, {
        infra,
        databaseUrl: env.databaseUrl,
        dataDir: env.dataDir,
        schema: env.schema('notifier'),
        keySecret: 'x'.repeat(32),
      });
      await app.ready();
      replica = {
        infra,
        async close() {
          await app.close();
          await infra.close();
        },
      };
    });
    afterAll(async () => {
      await replica?.close();
    });

    it('a settled request crossing QuotaRemindThreshold warns the user once in 2 hours, in their language, across replicas', async () => {
      const { gateway, root } = world;
      const username = `low${backend === 'real' ? 'r' : 'm'}`;
      const address = `${username}@example.com`;
      // Registered from an English console: the warning is in English.
      expect(
        (
          await call('POST', '/api/user/register', {
            body: { username, password: 'low-password', password2: 'low-password' },
            headers: { 'accept-language': 'en-US' },
          })
        ).json().success,
      ).toBe(true);
      const user = await gateway.login(username, 'low-password');
      await setOptions(gateway, root, { QuotaRemindThreshold: 250_000, DisplayInCurrencyEnabled: true, QuotaPerUnit: 500_000 });
      const setQuota = async (quota: number) =>
        expect((await call('PUT', '/api/user/', { session: root, body: { id: user.id, email: address, quota } })).json().success).toBe(true);
      const drops = await collectEvents(gateway.env.infra.bus, 'billing.balance.dropped');
      const charge = (quota: number) => {
        const usage: UsageRecord = {
          request_id: randomUUID(),
          user_id: user.id,
          token_id: 0,
          token_name: '',
          model_name: 'gpt-4o',
          group: 'default',
          channel_id: 1,
          prompt_tokens: 10,
          completion_tokens: 10,
          quota,
          use_time_ms: 100,
          is_stream: false,
          created_at: Math.floor(Date.now() / 1000),
          content: '',
          other: {},
        };
        return publishEvent(gateway.env.infra.bus, 'relay.usage.recorded', usage);
      };

      await setQuota(1_000_000);
      await charge(900_000); // $2.00 -> $0.20, below the $0.50 threshold
      const mail = await onlyMailTo(address);
      expect(mail.subject).toBe(`${SYSTEM_NAME}: your balance is running low`);
      expect(mail.text).toContain(`Hello ${username}, your balance is running low: $0.20 left (warning threshold $0.50).`);
      expect(mail.text).toContain(`please top up: ${SERVER_ADDRESS}/topup`);
      expect(mail.html).toContain(`<a href="${SERVER_ADDRESS}/topup">${SERVER_ADDRESS}/topup</a>`);

      // The window is kept in the shared Kv (Redis on the real backend) for 2 hours.
      const ttl = await gateway.env.infra.kv.ttl(`notifier:low-balance:${user.id}`);
      expect(ttl).toBeGreaterThan(LOW_BALANCE_EVERY_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(LOW_BALANCE_EVERY_MS);

      // Topped up and crossing again: within 2 hours nothing more is sent, whichever replica handles
      // the drop. On the real backend the rounds go on until each replica has handled one.
      const handled = { gateway: 0, replica: 0 };
      const count = (kv: Infrastructure['kv'], who: keyof typeof handled) => {
        const setIfAbsent = kv.setIfAbsent.bind(kv);
        kv.setIfAbsent = (key, ...rest) => {
          if (key === `notifier:low-balance:${user.id}`) handled[who] += 1;
          return setIfAbsent(key, ...rest);
        };
      };
      count(gateway.env.infra.kv, 'gateway');
      if (replica) count(replica.infra.kv, 'replica');
      for (let round = 2; round <= 3 || (replica && round <= 12 && (handled.gateway === 0 || handled.replica === 0)); round++) {
        await setQuota(1_000_000);
        await charge(900_000);
        await waitFor(() => drops.length === round, 10_000, `drop ${round} reported`);
        await waitFor(() => handled.gateway + handled.replica === round - 1, 10_000, `drop ${round} handled`);
      }
      if (replica) {
        expect(handled.gateway).toBeGreaterThan(0);
        expect(handled.replica).toBeGreaterThan(0);
      }
      // A fixed wait: a drop handled is skipped without a trace, so nothing marks that no mail follows.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(world.mailsTo(address)).toHaveLength(1);
      expect((await world.deliveries()).filter((row) => row.topic === 'low_balance' && row.target === address)).toHaveLength(1);
    });

    it('shows raw figures when DisplayInCurrencyEnabled is off, and skips users without an email', async () => {
      const { gateway, root } = world;
      const username = `raw${backend === 'real' ? 'r' : 'm'}`;
      const address = `${username}@example.com`;
      expect((await gateway.register(username, 'raw-password')).json().success).toBe(true);
      const user = await gateway.login(username, 'raw-password');
      await setOptions(gateway, root, { DisplayInCurrencyEnabled: false, QuotaRemindThreshold: 1_000 });
      const drops = await collectEvents(gateway.env.infra.bus, 'billing.balance.dropped');
      const charge = (quota: number) =>
        publishEvent(gateway.env.infra.bus, 'relay.usage.recorded', {
          request_id: randomUUID(),
          user_id: user.id,
          token_id: 0,
          token_name: '',
          model_name: 'gpt-4o',
          group: 'default',
          channel_id: 1,
          prompt_tokens: 1,
          completion_tokens: 1,
          quota,
          use_time_ms: 10,
          is_stream: false,
          created_at: Math.floor(Date.now() / 1000),
          content: '',
          other: {},
        });
      // No email yet: the drop is reported but nobody is mailed, and the 2-hour window is not taken.
      expect((await call('PUT', '/api/user/', { session: root, body: { id: user.id, quota: 1_500 } })).json().success).toBe(true);
      await charge(1_000);
      await waitFor(() => drops.length === 1, 10_000, 'first drop');
      // A fixed wait: a drop for a user without an email is skipped without a trace, so nothing marks it handled.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await gateway.env.infra.kv.get(`notifier:low-balance:${user.id}`)).toBeNull();

      expect((await call('PUT', '/api/user/', { session: root, body: { id: user.id, email: address, quota: 1_500 } })).json().success).toBe(true);
      await charge(1_000);
      const mail = await onlyMailTo(address);
      expect(mail.subject).toBe(`${SYSTEM_NAME}：您的额度即将用尽`);
      expect(mail.text).toContain(`${username}，您好！您的额度即将用尽，当前剩余额度为 500（提醒阈值 1000）。`);
    });
  });
});
