// Rule R12 (issue 22 item 9): state changes only on POST, PUT or DELETE. The established
// product's state-changing GETs are POST here; the GETs kept for outside callers are the
// compatibility exceptions of docs/security.md, and every other GET is a read.
import fs from 'node:fs';
import path from 'node:path';
import { declaredRoutes } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type TestGateway } from './support/gateway';
import { useLoopbackSmtp } from './support/loopback-smtp';

const securityDoc = fs.readFileSync(path.join(__dirname, '../../../docs/security.md'), 'utf8');
const exceptionsSection = securityDoc.slice(securityDoc.indexOf('## Compatibility exceptions'));

/** The GET routes of the exceptions table (the section's second table: routes kept as GET). */
const keptGets = exceptionsSection
  .slice(exceptionsSection.indexOf('These GETs change state and stay GET'))
  .split('\n')
  .filter((line) => line.startsWith('| `GET '))
  .flatMap((line) => [...line.split('|')[1]!.matchAll(/`GET ([^`]+)`/g)].map((match) => match[1]!));

/** The established product's state-changing GETs, each POST here (the section's first table). */
const movedToPost = [
  '/api/user/token',
  '/api/user/logout',
  '/api/verification',
  '/api/reset_password',
  '/api/oauth/email/bind',
  '/api/oauth/wechat',
  '/api/oauth/wechat/bind',
  '/api/oauth/telegram/login',
  '/api/oauth/telegram/bind',
  '/api/channel/test',
  '/api/channel/test/:id',
  '/api/channel/update_balance',
  '/api/channel/update_balance/:id',
];

/** Every other GET route only reads. A new GET route must be classified here or in docs/security.md. */
const reads = [
  '/api/status',
  '/api/notice',
  '/api/about',
  '/api/home_page_content',
  '/api/user/self',
  '/api/user/aff',
  '/api/user/self/groups',
  '/api/user/setting',
  // Asks WxPusher for a fresh QR code (remembered in the Kv until it expires); the binding itself is a POST.
  '/api/user/wxpusher/qrcode',
  '/api/user/',
  '/api/user/search',
  '/api/user/:id',
  '/api/group/',
  '/api/user/groups',
  '/api/option/',
  '/api/user/2fa/status',
  '/api/user/2fa/stats',
  '/api/user/passkey',
  '/api/redemption/',
  '/api/redemption/search',
  '/api/redemption/:id',
  '/api/log/',
  '/api/log/self',
  '/api/log/stat',
  '/api/log/self/stat',
  '/api/data/',
  '/api/data/self',
  '/api/token/',
  '/api/token/search',
  '/api/token/:id',
  '/api/pricing',
  '/api/user/topup',
  '/api/channel/',
  '/api/channel/search',
  '/api/channel/:id',
  '/api/channel/fetch_models/:id',
  '/api/channel/models',
  '/api/channel/models_enabled',
  '/api/models',
  '/api/user/models',
  '/v1/models',
  '/v1/models/:model',
  '/v1/responses/:id',
  '/v1/responses/:id/input_items',
  '/v1beta/models',
  '/v1beta/models/:model',
  '/dashboard/billing/subscription',
  '/dashboard/billing/usage',
  '/v1/dashboard/billing/subscription',
  '/v1/dashboard/billing/usage',
  // The task APIs' fetches: from the relay's task store, an image or a seed from the upstream (read only).
  ...['/mj', '/mj-fast/mj', '/mj-relax/mj', '/mj-turbo/mj'].flatMap((prefix) => [`${prefix}/task/:id/fetch`, `${prefix}/task/:id/image-seed`]),
  '/mj/image/:id',
  '/suno/fetch/:id',
  '/api/mj/',
  '/api/mj/self',
  '/api/task/',
  '/api/task/self',
  // What a scope's usage limits count now (the counters read, nothing counted).
  '/api/limits/use',
  '/api/webhook/',
  '/api/webhook/:id',
  '/api/webhook/deliveries',
  '/api/job/',
  '/api/audit/',
  // Each service's dead letters (replays and deletions are POST and DELETE).
  '/api/dead_letter/identity/',
  '/api/dead_letter/billing/',
  '/api/dead_letter/channels/',
  '/api/dead_letter/relay/',
  '/api/dead_letter/notifier/',
];

describe('state changes only on POST, PUT or DELETE (rule R12)', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway('in-process');
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const methodsOf = (url: string) =>
    declaredRoutes(gateway.app)
      .filter((route) => route.url === url)
      .map((route) => route.method);

  it('lists its kept GETs in docs/security.md, each a route that exists', () => {
    expect(keptGets.sort()).toEqual([
      '/api/oauth/github',
      '/api/oauth/linuxdo',
      '/api/oauth/oidc',
      '/api/oauth/state',
      '/api/user/epay/notify',
      '/v1/realtime',
    ]);
    for (const url of keptGets) expect([url, methodsOf(url)]).toEqual([url, expect.arrayContaining(['GET'])]);
  });

  it("serves each of the established product's state-changing GETs as POST only", () => {
    for (const url of movedToPost) {
      expect(exceptionsSection).toContain(`\`POST ${url}`);
      expect([url, methodsOf(url)]).toEqual([url, ['POST']]);
    }
  });

  it('has no other GET route than reads and the listed exceptions', () => {
    const gets = declaredRoutes(gateway.app)
      .filter((route) => route.method === 'GET' && !route.url.startsWith('/internal/'))
      .map((route) => route.url);
    expect(gets.filter((url) => !reads.includes(url) && !keptGets.includes(url))).toEqual([]);
  });

  it('changes nothing on the old GETs: no new access token, no sign-out, no mail', async () => {
    const mails: unknown[] = [];
    await gateway.env.infra.bus.subscribe('notifier.mail.requested', async (event) => void mails.push(event), {});
    await gateway.register('gina', 'gina-password');
    const session = await gateway.login('gina', 'gina-password');
    // A mail server is set (on loopback): the verification POST below sends a mail.
    const root = await gateway.login('root', ROOT_PASSWORD);
    const receiver = await useLoopbackSmtp(gateway, root);
    const token = (await gateway.call('POST', '/api/user/token', { session })).json().data as string;
    const viaToken = { authorization: token, 'new-api-user': String(session.id) };

    // 405 naming the method, not a fall-through to another GET route (`/api/user/:id`).
    const rotate = await gateway.call('GET', '/api/user/token', { session });
    expect(rotate.statusCode).toBe(405);
    expect(rotate.headers.allow).toBe('POST');
    expect(rotate.json()).toEqual({ success: false, message: '/api/user/token changes state: use POST' });
    const inChinese = await gateway.call('GET', '/api/user/token', { session, headers: { 'accept-language': 'zh-CN' } });
    expect(inChinese.json()).toEqual({ success: false, message: '/api/user/token 会修改数据，请使用 POST' });
    expect((await gateway.call('GET', '/api/user/logout', { session })).statusCode).toBe(405);
    for (const url of [
      '/api/verification?email=gina%40example.com',
      '/api/reset_password?email=gina%40example.com',
      '/api/channel/test/1',
      '/api/channel/update_balance/',
    ]) {
      expect([url, (await gateway.call('GET', url)).statusCode]).toEqual([url, 405]);
    }
    expect((await gateway.call('GET', '/api/user/self', { headers: viaToken })).statusCode).toBe(200);
    expect((await gateway.call('GET', '/api/user/self', { session })).statusCode).toBe(200);

    // The POSTs do it; a verification mail is asked for.
    expect((await gateway.call('POST', '/api/verification', { body: { email: 'gina@example.com' } })).json()).toEqual({ success: true, message: '' });
    await waitFor(() => mails.length === 1, 5_000, 'verification mail');
    expect((await gateway.call('POST', '/api/user/logout', { session })).json()).toEqual({ success: true, message: '' });
    await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session })).statusCode === 401, 5_000, 'signed out');
    expect(mails).toHaveLength(1);
    expect(receiver.mails.map((mail) => mail.to)).toEqual([['gina@example.com']]);
    await receiver.stop();
  });
});
