import { createHmac } from 'node:crypto';
import { backends } from '@aigw/platform/testing';
import { DeliveryEntity, WebhookEndpointEntity } from '../src/entities/index';
import { setNotifierOption, startReceiver, startWebhookWorld, type Receiver, type WebhookWorld } from './support/webhooks';

describe.each(backends)('webhook endpoints (%s)', (backend) => {
  let world: WebhookWorld;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver({ '/down': 'fail:100' });
    world = await startWebhookWorld(backend, { allowPrivate: true });
  });
  afterAll(async () => {
    await world?.close();
    await receiver?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    world.gateway
      .call(method, url, { session: world.root, body })
      .then((response) => ({ status: response.statusCode, raw: response.body, ...response.json() }));
  const count = () => world.db.getRepository(WebhookEndpointEntity).count();

  it('shows a generated secret once, at creation, and never again', async () => {
    const created = await call('POST', '/api/webhook/', {
      url: receiver.url('/a'),
      subjects: ['relay.usage.recorded', 'billing.>'],
      description: 'ledger sync',
    });
    expect(created.success).toBe(true);
    expect(created.data).toMatchObject({ url: receiver.url('/a'), subjects: ['relay.usage.recorded', 'billing.>'], description: 'ledger sync', enabled: true });
    const secret: string = created.data.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const row = await world.db.getRepository(WebhookEndpointEntity).findOneByOrFail({ id: created.data.id });
    expect(row.secret_encrypted).not.toContain(secret.slice(6));
    for (const url of ['/api/webhook/', `/api/webhook/${created.data.id}`]) {
      const answer = await call('GET', url);
      expect(answer.success).toBe(true);
      expect(answer.raw).not.toContain(secret.slice(6));
      expect(answer.raw).not.toContain(row.secret_encrypted.split('.')[2]);
      expect(answer.raw).not.toMatch(/secret/);
    }
    const updated = await call('PUT', '/api/webhook/', { id: created.data.id, description: 'renamed' });
    expect(updated.data).toEqual(expect.objectContaining({ description: 'renamed' }));
    expect(updated.raw).not.toMatch(/secret/);
  });

  it('takes a secret given by root (long enough), and rotates it, showing the new one once', async () => {
    const given = 'root-chosen-secret-0123456789-abcdef';
    const short = await call('POST', '/api/webhook/', { url: receiver.url('/b'), subjects: ['relay.>'], secret: 'short' });
    expect(short).toMatchObject({ success: false, message: expect.stringMatching(/^secret must be at least 32 characters/) });

    const created = await call('POST', '/api/webhook/', { url: receiver.url('/b'), subjects: ['relay.>'], secret: given });
    expect(created.data.secret).toBe(given);
    const rotated = await call('POST', `/api/webhook/${created.data.id}/rotate`, {});
    expect(rotated.data.secret).toMatch(/^whsec_/);
    expect(rotated.data.secret).not.toBe(given);

    // The ping is signed with the rotated secret.
    const ping = await call('POST', `/api/webhook/${created.data.id}/test`);
    expect(ping.data).toMatchObject({ ok: true, status_code: 200, error: '' });
    const received = receiver.on('/b').at(-1)!;
    const timestamp = String(received.headers['x-webhook-timestamp']);
    expect(received.headers['x-webhook-signature']).toBe(
      `sha256=${createHmac('sha256', rotated.data.secret).update(`${timestamp}.${received.body}`).digest('hex')}`,
    );
    expect(JSON.parse(received.body)).toMatchObject({ subject: 'webhook.ping', data: { webhook_id: created.data.id } });
  });

  it("reports a failing test ping with the endpoint's answer", async () => {
    const created = await call('POST', '/api/webhook/', { url: receiver.url('/down'), subjects: ['relay.>'] });
    const ping = await call('POST', `/api/webhook/${created.data.id}/test`);
    expect(ping).toMatchObject({
      success: true,
      message: 'HTTP 500: receiver down (call 1)',
      data: { ok: false, status_code: 500, error: 'HTTP 500: receiver down (call 1)' },
    });
    expect(await world.db.getRepository(DeliveryEntity).countBy({ webhook_id: created.data.id })).toBe(0);
  });

  it.each([
    ['a non-http scheme', { url: 'ftp://hooks.example.com/x' }, /^url must be an absolute http:\/\/ or https:\/\/ address/],
    ['credentials in the URL', { url: 'https://user:pw@hooks.example.com/x' }, /^url must not contain a user name or password/],
    ['a blocked port', { url: 'http://hooks.example.com:25/x' }, /^url: egress blocked: port 25/],
    ['no subjects', { subjects: [] }, /^subjects: choose at least one subject/],
    ['an unknown subject', { subjects: ['relay.>', 'billing.tokn.*'] }, /^subjects\.1: "billing\.tokn\.\*" matches no event/],
    ['an unknown domain', { subjects: ['payments.>'] }, /^subjects\.0: "payments\.>" matches no event/],
    ['a malformed pattern', { subjects: ['relay.>.usage'] }, /^subjects\.0: "relay\.>\.usage" is not a subject pattern/],
    ['mail requests, which carry codes and reset links', { subjects: ['notifier.mail.requested'] }, /^subjects\.0: .* matches no event/],
    ['a long description', { description: 'x'.repeat(256) }, /^description is at most 255 characters/],
  ])('refuses %s, naming the field, and writes nothing', async (_name, change, message) => {
    const before = await count();
    const answer = await call('POST', '/api/webhook/', { url: receiver.url('/c'), subjects: ['relay.>'], ...change });
    expect(answer).toMatchObject({ success: false, message: expect.stringMatching(message) });
    expect(await count()).toBe(before);
  });

  it("words its refusals in the caller's language: zh-CN for a Chinese console, English when asked", async () => {
    const inLocale = async (locale: string, method: 'GET' | 'POST', url: string, body?: unknown) =>
      (await world.gateway.call(method, url, { session: world.root, body, headers: { 'accept-language': locale } })).json().message;
    const create = (change: object) => ({ url: receiver.url('/f'), subjects: ['relay.>'], ...change });
    const refusals: Array<[object, string, string]> = [
      [{ url: 'ftp://hooks.example.com/x' }, 'url 必须是以 http:// 或 https:// 开头的完整地址', 'url must be an absolute http:// or https:// address'],
      [
        { url: 'http://hooks.example.com:25/x' },
        'url: 出站请求已拦截：不允许端口 25（仅限 80、443 或 1024 及以上）',
        'url: egress blocked: port 25 is not allowed (80, 443 or 1024 and above)',
      ],
      [{ subjects: [] }, 'subjects: 请至少选择一个主题', 'subjects: choose at least one subject'],
      [{ subjects: ['payments.>'] }, 'subjects.0: "payments.>" 不匹配任何事件（可用的域：', 'subjects.0: "payments.>" matches no event (domains: '],
      [{ secret: 'short' }, 'secret 至少 32 个字符', 'secret must be at least 32 characters'],
    ];
    for (const [change, chinese, english] of refusals) {
      expect(await inLocale('zh-CN', 'POST', '/api/webhook/', create(change))).toContain(chinese);
      expect(await inLocale('en-US', 'POST', '/api/webhook/', create(change))).toContain(english);
    }
    // Without Accept-Language the console's default, zh-CN.
    expect(await inLocale('', 'GET', '/api/webhook/99999')).toBe('Webhook 端点不存在');
    expect(await inLocale('en-US', 'GET', '/api/webhook/99999')).toBe('webhook endpoint not found');
  });

  it('refuses private, loopback and metadata addresses while private networks are off, naming the field', async () => {
    const existing = await call('POST', '/api/webhook/', { url: receiver.url('/d'), subjects: ['relay.>'] });
    await setNotifierOption(world.gateway, world.root, 'AllowPrivateNetworkUpstreams', false);
    try {
      const before = await count();
      for (const url of [
        receiver.url('/d'),
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.8/hook',
        'http://[::1]:8080/hook',
        'http://localhost:8080/hook',
      ]) {
        const answer = await call('POST', '/api/webhook/', { url, subjects: ['relay.>'] });
        expect(answer).toMatchObject({ success: false, message: expect.stringMatching(/^url: egress blocked: .* AllowPrivateNetworkUpstreams/) });
      }
      const moved = await call('PUT', '/api/webhook/', { id: existing.data.id, url: 'http://192.168.1.1:8080/hook', enabled: false });
      expect(moved).toMatchObject({ success: false, message: expect.stringMatching(/^url: egress blocked/) });
      expect(await count()).toBe(before);
      expect((await call('GET', `/api/webhook/${existing.data.id}`)).data).toMatchObject({ url: receiver.url('/d'), enabled: true });

      const ping = await call('POST', `/api/webhook/${existing.data.id}/test`);
      expect(ping.data).toMatchObject({ ok: false, status_code: 0, error: expect.stringMatching(/^egress blocked/) });
      expect(ping.message).toBe(ping.data.error);
      // The guard's refusal is the caller's language in the test's answer too.
      const chinese = (
        await world.gateway.call('POST', `/api/webhook/${existing.data.id}/test`, { session: world.root, headers: { 'accept-language': 'zh-CN' } })
      ).json();
      expect(chinese).toMatchObject({
        success: true,
        message: expect.stringMatching(/^出站请求已拦截：/),
        data: { ok: false, error: expect.stringMatching(/^出站请求已拦截：/) },
      });
      expect(receiver.on('/d')).toEqual([]);
    } finally {
      await setNotifierOption(world.gateway, world.root, 'AllowPrivateNetworkUpstreams', true);
    }
  });

  it('edits and deletes; a deleted endpoint is 404', async () => {
    const created = await call('POST', '/api/webhook/', { url: receiver.url('/e'), subjects: ['relay.>'] });
    const edited = await call('PUT', '/api/webhook/', {
      id: created.data.id,
      url: receiver.url('/e2'),
      subjects: ['channels.>', 'channels.>'],
      enabled: false,
    });
    expect(edited.data).toMatchObject({ url: receiver.url('/e2'), subjects: ['channels.>'], enabled: false, description: '' });
    expect((await call('DELETE', `/api/webhook/${created.data.id}`)).success).toBe(true);
    expect(await call('GET', `/api/webhook/${created.data.id}`)).toMatchObject({ status: 404, success: false });
    expect(await call('DELETE', `/api/webhook/${created.data.id}`)).toMatchObject({ status: 404, success: false });
    expect(await call('PUT', '/api/webhook/', { id: created.data.id, enabled: true })).toMatchObject({ status: 404, success: false });
  });

  it('lists mail and webhook deliveries newest first, filtered by kind and status, without payloads', async () => {
    const repository = world.db.getRepository(DeliveryEntity);
    const row = (kind: 'mail' | 'webhook', status: 'pending' | 'sent' | 'failed', n: number) => ({
      kind,
      status,
      target: kind === 'mail' ? `user${n}@example.com` : `https://hooks.example.com/${n}`,
      topic: kind === 'mail' ? 'password_reset' : 'relay.usage.recorded',
      dedupe_key: `listing-${n}`,
      webhook_id: kind === 'mail' ? 0 : 99,
      payload: `{"secret-link":"https://gw.example.com/reset?token=${n}"}`,
      attempts: status === 'failed' ? 5 : 1,
      last_error: status === 'failed' ? 'connect ECONNREFUSED' : '',
      response_status: 0,
      created_at: 1_732_600_000 + n,
      updated_at: 1_732_600_000 + n,
    });
    await repository.save(
      [row('mail', 'failed', 1), row('webhook', 'sent', 2), row('mail', 'sent', 3), row('webhook', 'failed', 4), row('mail', 'failed', 5)].map((values) =>
        repository.create(values),
      ),
    );

    const failedMail = await call('GET', '/api/webhook/deliveries?kind=mail&status=failed&p=1&page_size=10');
    expect(failedMail.data).toMatchObject({ total: 2, page: 1, page_size: 10 });
    expect(failedMail.data.items.map((item: { target: string }) => item.target)).toEqual(['user5@example.com', 'user1@example.com']);
    expect(failedMail.data.items[0]).toEqual({
      id: expect.any(Number),
      kind: 'mail',
      target: 'user5@example.com',
      topic: 'password_reset',
      webhook_id: 0,
      status: 'failed',
      attempts: 5,
      response_status: 0,
      last_error: 'connect ECONNREFUSED',
      created_at: 1_732_600_005,
      updated_at: 1_732_600_005,
    });

    const all = await call('GET', '/api/webhook/deliveries?kind=&status=&p=0&page_size=2');
    expect(all.data.items).toHaveLength(2);
    expect(all.data.items[0].id).toBeGreaterThan(all.data.items[1].id);
    expect(all.raw).not.toContain('secret-link');
    const page2 = await call('GET', `/api/webhook/deliveries?p=2&page_size=2`);
    expect(page2.data.items[0].id).toBeLessThan(all.data.items[1].id);

    expect(await call('GET', '/api/webhook/deliveries?kind=sms')).toMatchObject({ success: false, message: expect.stringMatching(/^kind\b/) });
  });
});
