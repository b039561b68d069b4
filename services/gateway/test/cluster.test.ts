// End to end, distributed: every service as its own process (the cluster launcher, compiled
// dist/) on PostgreSQL + NATS + Redis, driven through the gateway with plain fetch. Proves that
// register, login, admin user management and option changes work across processes, that a
// revocation reaches the gateway over the bus, and that an option change reaches billing.
import crypto from 'node:crypto';
import http from 'node:http';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import WebSocket from 'ws';
import type { DataSource } from 'typeorm';
import { reconcile } from '../../billing/src/reconcile';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { signIdentity, type AuthContext } from '@aigw/platform';
import { startMockUpstream } from '../../../tools/mock-upstream/server.mjs';
import { createTestEnvironment, waitFor, type TestEnvironment } from '@aigw/platform/testing';
import type { Cluster } from '../../../tools/cluster/cluster.mjs';
import { Client, startTestCluster, type Envelope } from './support/cluster-client';

jest.setTimeout(120_000);

const rootPassword = 'root-pass-1234';
const root: AuthContext = { userId: 1, username: 'root', role: 100, group: 'default' };

let environment: TestEnvironment | undefined;
let cluster: Cluster | undefined;
let secret: string;
const logs: string[] = [];

beforeAll(async () => {
  environment = await createTestEnvironment('real');
  secret = crypto.randomBytes(32).toString('base64url');
  cluster = await startTestCluster(environment, { INTERNAL_SECRET: secret, INITIAL_ROOT_PASSWORD: rootPassword }, logs);
});

afterAll(async () => {
  await cluster?.stop();
  await environment?.cleanup();
});

describe('the distributed cluster, through the gateway', () => {
  let alice: Client;
  let admin: Client;
  let aliceId: number;

  const gateway = () => new Client(cluster!.gatewayUrl);

  test('GET /api/status answers from identity', async () => {
    const { status, body } = await gateway().call('GET', '/api/status');
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data.version).toEqual(expect.any(String));
  });

  test('registration: a user, a duplicate username, a too-short password', async () => {
    const anonymous = gateway();
    const registered = await anonymous.call('POST', '/api/user/register', { username: 'alice', password: 'alice-pass-1', password2: 'alice-pass-1' });
    expect(registered.body).toMatchObject({ success: true });

    const duplicate = await anonymous.call('POST', '/api/user/register', { username: 'alice', password: 'other-pass-1', password2: 'other-pass-1' });
    expect(duplicate.body.success).toBe(false);
    expect(duplicate.body.message).toMatch(/username/);

    const short = await anonymous.call('POST', '/api/user/register', { username: 'carol', password: 'short', password2: 'short' });
    expect(short.body.success).toBe(false);
    expect(short.body.message).toMatch(/password/);
  });

  test('login, and New-Api-User must name the logged-in user', async () => {
    alice = gateway();
    const login = await alice.login('alice', 'alice-pass-1');
    expect(login).toMatchObject({ success: true, data: { username: 'alice', role: 1, status: 1 } });
    expect(alice.cookie).toMatch(/^session=./);
    aliceId = alice.userId!;

    const self = await alice.call('GET', '/api/user/self');
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({ id: aliceId, username: 'alice' });
    expect(self.body.data).not.toHaveProperty('password_hash');

    const withoutHeader = gateway();
    withoutHeader.cookie = alice.cookie;
    expect((await withoutHeader.call('GET', '/api/user/self')).status).toBe(401);
    const otherId = await alice.call('GET', '/api/user/self', undefined, { 'new-api-user': String(aliceId + 1000) });
    expect(otherId.status).toBe(401);
    const wrongLogin = await gateway().login('alice', 'wrong-pass-1');
    expect(wrongLogin.success).toBe(false);
  });

  test('an ordinary user gets 403 on admin routes and changes nothing', async () => {
    expect((await alice.call('GET', '/api/user/')).status).toBe(403);
    const promote = await alice.call('POST', '/api/user/manage', { id: aliceId, action: 'promote' });
    expect(promote.status).toBe(403);
    expect(promote.body.success).toBe(false);
    expect((await alice.call('PUT', '/api/option/', { key: 'SystemName', value: 'Hijacked' })).status).toBe(403);
    const self = await alice.call('GET', '/api/user/self');
    expect(self.body.data).toMatchObject({ role: 1, status: 1 });
    expect((await gateway().call('GET', '/api/status')).body.data.system_name).not.toBe('Hijacked');
  });

  test('root lists and searches users', async () => {
    admin = gateway();
    expect(await admin.login('root', rootPassword)).toMatchObject({ success: true, data: { id: 1, role: 100 } });

    const page0 = await admin.call('GET', '/api/user/?p=0&page_size=10');
    const page1 = await admin.call('GET', '/api/user/?p=1&page_size=10');
    expect(page0.body.success).toBe(true);
    expect(page0.body.data.total).toBeGreaterThanOrEqual(2);
    expect(page0.body.data.items.map((user: { id: number }) => user.id)).toEqual(page1.body.data.items.map((user: { id: number }) => user.id));
    expect(page0.body.data.items.map((user: { username: string }) => user.username)).toEqual(expect.arrayContaining(['root', 'alice']));

    const search = await admin.call('GET', '/api/user/search?keyword=alic&p=1&page_size=10');
    expect(search.body.success).toBe(true);
    expect(search.body.data.items).toEqual([expect.objectContaining({ id: aliceId, username: 'alice' })]);
  });

  test('disabling a user ends their session at the gateway (revocation over the bus)', async () => {
    // The gateway has alice's session cached now (TTL 60 s): only the bus event can drop it in time.
    expect((await alice.call('GET', '/api/user/self')).status).toBe(200);
    const disabled = await admin.call('POST', '/api/user/manage', { id: aliceId, action: 'disable' });
    expect(disabled.body).toMatchObject({ success: true, data: { status: 2 } });
    await waitFor(async () => (await alice.call('GET', '/api/user/self')).status === 401, 10_000, 'disabled session refused');
    expect((await gateway().login('alice', 'alice-pass-1')).success).toBe(false);

    const enabled = await admin.call('POST', '/api/user/manage', { id: aliceId, action: 'enable' });
    expect(enabled.body).toMatchObject({ success: true, data: { status: 1 } });
    expect(await alice.login('alice', 'alice-pass-1')).toMatchObject({ success: true });
  });

  test('promote, demote, and root cannot manage itself', async () => {
    expect((await admin.call('POST', '/api/user/manage', { id: aliceId, action: 'promote' })).body).toMatchObject({ success: true, data: { role: 10 } });
    expect((await admin.call('POST', '/api/user/manage', { id: aliceId, action: 'demote' })).body).toMatchObject({ success: true, data: { role: 1 } });
    for (const action of ['demote', 'disable', 'delete']) {
      const refused = await admin.call('POST', '/api/user/manage', { id: 1, action });
      expect(refused.body.success).toBe(false);
    }
    expect((await admin.call('GET', '/api/user/self')).body.data).toMatchObject({ id: 1, role: 100, status: 1 });
  });

  test('root edits and creates users', async () => {
    expect((await admin.call('PUT', '/api/user/', { id: aliceId, display_name: 'Alice C' })).body).toMatchObject({ success: true });
    expect((await admin.call('GET', `/api/user/${aliceId}`)).body.data).toMatchObject({ display_name: 'Alice C' });

    expect((await admin.call('POST', '/api/user/', { username: 'bob', password: 'bob-pass-123', display_name: 'Bob' })).body).toMatchObject({ success: true });
    const search = await admin.call('GET', '/api/user/search?keyword=bob');
    expect(search.body.data.items).toEqual([expect.objectContaining({ username: 'bob', display_name: 'Bob', role: 1 })]);
    expect(await gateway().login('bob', 'bob-pass-123')).toMatchObject({ success: true });
  });

  test('an option change shows in /api/status and reaches billing over the bus', async () => {
    expect((await admin.call('PUT', '/api/option/', { key: 'SystemName', value: 'Cluster Test' })).body).toMatchObject({ success: true });
    expect((await gateway().call('GET', '/api/status')).body.data.system_name).toBe('Cluster Test');

    const billingOptions = async (headers: Record<string, string>) => {
      const response = await fetch(`${cluster!.servicesUrls.billing}/internal/billing/options`, { headers });
      return { status: response.status, body: (await response.json()) as Envelope<Record<string, unknown>> };
    };
    const signed = (key: string, auth: AuthContext = root) => signIdentity(key, 'GET', '/internal/billing/options', auth, '127.0.0.1');
    await waitFor(async () => (await billingOptions(signed(secret))).body.data?.SystemName === 'Cluster Test', 10_000, 'billing sees SystemName');

    expect((await billingOptions({})).status).toBe(401);
    expect((await billingOptions(signed(crypto.randomBytes(32).toString('base64url')))).status).toBe(401);
    expect((await billingOptions(signed(secret, { ...root, userId: aliceId, username: 'alice', role: 1 }))).status).toBe(403);
    // The gateway does not expose /internal/ in the distributed topology.
    expect((await admin.call('GET', '/internal/billing/options')).status).toBe(404);
  });

  test('the relay serves an sk- token through the proxy, streams included, and billing records it', async () => {
    const mock = await startMockUpstream({});
    try {
      for (const [key, value] of [
        ['AllowPrivateNetworkUpstreams', 'true'],
        ['ModelRatio', '{"mock-*":1}'],
        ['ModelPrice', '{"dall-e-3":0.04}'],
      ]) {
        expect((await admin.call('PUT', '/api/option/', { key, value })).body).toMatchObject({ success: true });
      }
      // The mock is on loopback: this channel may reach it (its own flag, not the option, whose default reaches the channels process only later).
      const channel = await admin.call('POST', '/api/channel/', {
        type: 1,
        name: 'mock',
        key: 'mock-key',
        base_url: mock.url,
        models: 'mock-gpt,dall-e-3,mock-realtime',
        group: 'default',
        allow_private_network: true,
      });
      expect(channel.body).toMatchObject({ success: true });
      const gemini = await admin.call('POST', '/api/channel/', {
        type: 24,
        name: 'mock-gemini',
        key: 'mock-key',
        base_url: mock.url,
        models: 'mock-gemini',
        group: 'default',
        allow_private_network: true,
      });
      expect(gemini.body).toMatchObject({ success: true });
      expect((await admin.call('PUT', '/api/user/', { id: aliceId, quota: 5_000_000 })).body).toMatchObject({ success: true });
      const token = await alice.call('POST', '/api/token/', { name: 'cluster', unlimited_quota: true });
      expect(token.body).toMatchObject({ success: true });
      const client = new OpenAI({ baseURL: `${cluster!.gatewayUrl}/v1`, apiKey: token.body.data[0].key, maxRetries: 0 });

      // The relay learns the channel and the options over NATS: wait until it answers.
      let answer: OpenAI.Chat.Completions.ChatCompletion | undefined;
      await waitFor(
        async () => {
          answer = await client.chat.completions.create({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hello cluster' }] }).catch(() => undefined);
          return answer !== undefined;
        },
        15_000,
        'relay routes mock-gpt',
      );
      expect(answer!.usage?.total_tokens).toBeGreaterThan(0);
      const stream = await client.chat.completions.create({
        model: 'mock-gpt',
        stream: true,
        messages: [{ role: 'user', content: 'stream through the proxy' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text.length).toBeGreaterThan(0);

      // The other APIs take the same path across processes: an image (per image, priced in full),
      // a Responses stream, and Gemini's native stream through a Gemini channel.
      const image = await client.images.generate({ model: 'dall-e-3', prompt: 'a lighthouse', size: '1792x1024', quality: 'hd' });
      expect(image.data).toHaveLength(1);
      let responsesText = '';
      for await (const event of await client.responses.create({ model: 'mock-gpt', input: 'a Responses stream', stream: true })) {
        if (event.type === 'response.output_text.delta') responsesText += event.delta;
      }
      expect(responsesText).toBe('hello hello hello hello');
      const ai = new GoogleGenAI({ apiKey: token.body.data[0].key as string, httpOptions: { baseUrl: cluster!.gatewayUrl } });
      let geminiText = '';
      await waitFor(
        async () => {
          const list = await fetch(`${cluster!.gatewayUrl}/v1beta/models`, { headers: { 'x-goog-api-key': token.body.data[0].key as string } });
          return JSON.stringify(await list.json()).includes('models/mock-gemini');
        },
        15_000,
        'relay routes mock-gemini',
      );
      for await (const chunk of await ai.models.generateContentStream({ model: 'mock-gemini', contents: 'a Gemini stream' })) geminiText += chunk.text ?? '';
      expect(geminiText).toBe('hello hello hello hello');

      // A Realtime session through the gateway's upgrade pass-through: one billed response.
      const socket = new WebSocket(`${cluster!.gatewayUrl.replace(/^http/, 'ws')}/v1/realtime?model=mock-realtime`, {
        headers: { authorization: `Bearer ${token.body.data[0].key as string}` },
      });
      const done = new Promise<void>((resolve, reject) => {
        socket.on('message', (data: Buffer) => {
          if ((JSON.parse(data.toString()) as { type: string }).type === 'response.done') resolve();
        });
        socket.once('error', reject);
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send(JSON.stringify({ type: 'response.create' }));
      await done;
      socket.close();
      // Refused before any upgrade, in OpenAI's shape, as the relay answers it.
      const refused = await new Promise<number>((resolve, reject) => {
        const stranger = new WebSocket(`${cluster!.gatewayUrl.replace(/^http/, 'ws')}/v1/realtime?model=mock-realtime`, {
          headers: { authorization: 'Bearer sk-not-a-key' },
        });
        stranger.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        stranger.once('open', () => reject(new Error('a session opened with a bad key')));
        stranger.once('error', () => undefined);
      });
      expect(refused).toBe(401);

      await waitFor(async () => (await alice.call('GET', '/api/log/self?type=2')).body.data?.total >= 6, 15_000, 'usage logged by billing');
      const logs = (await alice.call('GET', '/api/log/self?type=2')).body.data.items as Array<{ model_name: string; quota: number; is_stream: boolean }>;
      expect(logs.map((log) => `${log.model_name}:${log.is_stream}`).sort()).toEqual([
        'dall-e-3:false',
        'mock-gemini:true',
        'mock-gpt:false',
        'mock-gpt:true',
        'mock-gpt:true',
        'mock-realtime:true',
      ]);
      expect(logs.every((log) => log.quota > 0)).toBe(true);
      // 0.04 USD x size 2 x quality 1.5 (dall-e-3 hd at 1792x1024) x QuotaPerUnit 500,000.
      expect(logs.find((log) => log.model_name === 'dall-e-3')!.quota).toBe(60_000);
      // Every balance equals its ledger after the mixed run.
      const billing: DataSource = await openBillingDatabase(environment!);
      try {
        await waitFor(async () => (await reconcile(billing)).length === 0, 15_000, 'ledger reconciled');
      } finally {
        await billing.destroy();
      }
    } finally {
      await mock.close();
    }
  });

  test("a key's IP allow list sees the client's address, through the gateway and at the relay's own port", async () => {
    const token = await alice.call('POST', '/api/token/', { name: 'from-127.0.0.2', unlimited_quota: true, allow_ips: '127.0.0.2' });
    const key = token.body.data[0].key as string;
    /** A chat from a loopback address of our choosing (the gateway reaches the relay from 127.0.0.1). */
    const chat = (base: string, localAddress: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const body = JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'where am I' }] });
        const request = http.request(`${base}/v1/chat/completions`, {
          method: 'POST',
          localAddress,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
        });
        request.on('response', (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        });
        request.once('error', reject);
        request.end(body);
      });
    const relay = cluster!.servicesUrls.relay;
    // The channel's mock stopped with the test before: a key the allow list lets through gets as
    // far as the upstream (502), one it refuses gets 403 before.
    const passed = { status: 502, body: expect.stringContaining('upstream_unreachable') };
    const refused = { status: 403, body: expect.stringContaining('ip_not_allowed') };
    expect(await chat(cluster!.gatewayUrl, '127.0.0.2')).toMatchObject(passed);
    expect(await chat(cluster!.gatewayUrl, '127.0.0.1')).toMatchObject(refused);
    expect(await chat(relay, '127.0.0.2')).toMatchObject(passed);
    // Without TRUST_PROXY the relay does not take a client's word for its address.
    expect(await chat(relay, '127.0.0.1', { 'x-forwarded-for': '127.0.0.2' })).toMatchObject(refused);
  });

  test('logout ends the session', async () => {
    const cookie = alice.cookie;
    expect((await alice.call('GET', '/api/user/self')).status).toBe(200);
    expect((await alice.call('POST', '/api/user/logout')).body).toMatchObject({ success: true });
    alice.cookie = cookie; // replay the old cookie
    await waitFor(async () => (await alice.call('GET', '/api/user/self')).status === 401, 10_000, 'logged-out session refused');
  });
});
