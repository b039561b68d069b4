import { waitFor } from '@aigw/platform/testing';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(90_000);

type Json = Record<string, unknown>;

/**
 * A key's own guards on the relay (docs/architecture.md section 5.11), on both backends: its deny
 * list refuses IPv4 and IPv6 ranges and wins over its allow list, and reaches the relay's cache
 * with the token's event; its rate limit refuses the (n+1)th request with the owner's own text
 * and the usual headers; its drawing modes refuse a Midjourney submit in another mode (or naming
 * none) in midjourney-proxy's shape, before any upstream call, while an allowed mode draws. The
 * client address comes from X-Forwarded-For (TRUST_PROXY), as behind an ingress.
 */
describe.each(backends)('API key guards (%s)', (backend) => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld(backend, { env: { TRUST_PROXY: 'true' } });
    await world.addChannel({ name: 'chat', models: 'mock-gpt' });
    await world.addChannel({ name: 'mj', type: 2, key: 'mj-key', models: 'mj_imagine,mj_upscale' });
    await world.waitForModel('mock-gpt');
    await world.waitForModel('mj_imagine');
  });
  afterAll(async () => {
    await world?.close();
  });

  /** A new key of the world's user with these fields. */
  const keyWith = async (fields: Json): Promise<{ id: number; key: string }> => {
    const name = `guarded-${Math.random().toString(36).slice(2, 8)}`;
    const answer = (await world.gateway.call('POST', '/api/token/', { session: world.user, body: { name, unlimited_quota: true, ...fields } })).json();
    if (!answer.success) throw new Error(`token: ${answer.message}`);
    return { id: answer.data[0].id, key: answer.data[0].key };
  };
  const chat = (key: string, from = '127.0.0.1') =>
    fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hello there' }] }),
    });
  const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; type: string; message: string } }).error;
  const chatsSince = (since: number) => world.mock.requests.filter((entry) => entry.time >= since && entry.path === '/v1/chat/completions').length;

  it('refuses addresses on the deny list, IPv4 and IPv6 ranges alike, with 403 ip_denied and no upstream call', async () => {
    const { key } = await keyWith({ deny_ips: '203.0.113.0/24\n2001:db8:bad::/48\n198.51.100.7' });
    const since = Date.now();
    for (const from of ['203.0.113.9', '198.51.100.7', '2001:db8:bad::17', '2001:db8:bad:ffff::1']) {
      const refused = await chat(key, from);
      expect({ from, status: refused.status }).toEqual({ from, status: 403 });
      const error = await errorOf(refused);
      expect(error).toMatchObject({ code: 'ip_denied', type: 'permission_error' });
      expect(error.message).toContain(`may not be used from ${from}: the address is on its deny list`);
    }
    expect(chatsSince(since)).toBe(0);
    for (const from of ['203.0.114.1', '198.51.100.8', '2001:db8:bae::1', '127.0.0.1']) {
      const answer = await chat(key, from);
      expect({ from, status: answer.status }).toEqual({ from, status: 200 });
    }
  });

  it('lets the deny list win over the allow list', async () => {
    const { key } = await keyWith({ allow_ips: '10.0.0.0/8\n2001:db8::/32', deny_ips: '10.9.0.0/16\n2001:db8:9::/48' });
    expect((await chat(key, '10.1.2.3')).status).toBe(200);
    expect((await chat(key, '2001:db8:1::1')).status).toBe(200);
    for (const from of ['10.9.1.1', '2001:db8:9::1']) {
      const refused = await chat(key, from);
      expect(refused.status).toBe(403);
      expect((await errorOf(refused)).code).toBe('ip_denied');
    }
    const outside = await chat(key, '192.0.2.1');
    expect(outside.status).toBe(403);
    expect((await errorOf(outside)).code).toBe('ip_not_allowed');
  });

  it('applies a deny list edited after the key was cached, from the token event (no lookup per request)', async () => {
    const { id, key } = await keyWith({});
    expect((await chat(key, '192.0.2.44')).status).toBe(200);
    const edited = (await world.gateway.call('PUT', '/api/token/', { session: world.user, body: { id, deny_ips: '192.0.2.0/26' } })).json();
    expect(edited.success).toBe(true);
    await waitFor(async () => (await chat(key, '192.0.2.44')).status === 403, 10_000, 'deny list reaches the relay');
    expect((await chat(key, '192.0.2.77')).status).toBe(200);
  });

  it("refuses the (n+1)th request past the key's rate limit with its own text, Retry-After and the x-ratelimit headers", async () => {
    const text = 'CI keys take 3 requests a minute; ask #platform for more';
    const { key } = await keyWith({ rate_limits: { rpm: 3 }, rate_limit_message: text });
    const since = Date.now();
    for (let index = 0; index < 3; index++) expect((await chat(key)).status).toBe(200);
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const error = await errorOf(refused);
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect(error.message).toMatch(new RegExp(`^${text} \\(request id: [^)]+\\)$`));
    expect(chatsSince(since)).toBe(3);

    // Without its own text a key's refusal says which limit, as OpenAI words it.
    const plain = await keyWith({ rate_limits: { rpm: 1 } });
    expect((await chat(plain.key)).status).toBe(200);
    const second = await chat(plain.key);
    expect(second.status).toBe(429);
    expect((await errorOf(second)).message).toMatch(/^Rate limit reached for this API key on requests per minute \(RPM\): Limit 1, Used 1\./);
  });

  describe('drawing modes', () => {
    const submit = async (key: string, prefix: string, prompt: string) => {
      const response = await fetch(`${world.baseUrl}${prefix}/submit/imagine`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt }),
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    const submitsSince = (since: number) => world.mock.requests.filter((entry) => entry.time >= since && entry.path === '/mj/submit/imagine').length;

    it('refuses a submit in a mode the key may not use, or naming none, in midjourney-proxy’s shape; an allowed mode draws', async () => {
      const { key } = await keyWith({ drawing_modes: ['relax'] });
      const since = Date.now();
      const refusals: Array<[string, string, RegExp]> = [
        ['/mj-fast/mj', 'a heron', /^this API key may not draw in fast mode; it may draw in relax mode$/],
        ['/mj-turbo/mj', 'a heron', /may not draw in turbo mode/],
        ['/mj-relax/mj', 'a heron --fast', /may not draw in fast mode/],
        ['/mj', 'a heron --turbo', /may not draw in turbo mode/],
        ['/mj', 'a heron', /^this API key may draw only in relax mode: send the request under \/mj-relax\/mj or add --relax to the prompt$/],
      ];
      for (const [prefix, prompt, description] of refusals) {
        const refused = await submit(key, prefix, prompt);
        expect({ prefix, prompt, status: refused.status }).toEqual({ prefix, prompt, status: 403 });
        expect(refused.body).toEqual({
          code: 4,
          description: expect.stringMatching(description),
          type: 'drawing_mode_not_allowed',
          result: null,
          properties: {},
        });
      }
      expect(submitsSince(since)).toBe(0);

      const underPrefix = await submit(key, '/mj-relax/mj', 'a heron --mock tasksteps=1');
      expect(underPrefix.status).toBe(200);
      expect(underPrefix.body).toMatchObject({ code: 1 });
      const byFlag = await submit(key, '/mj', 'a heron --relax --mock tasksteps=1');
      expect(byFlag.status).toBe(200);
      expect(byFlag.body).toMatchObject({ code: 1 });
      expect(submitsSince(since)).toBe(2);
    });

    it('lets a key without drawing modes draw in any mode', async () => {
      const { key } = await keyWith({});
      for (const prefix of ['/mj', '/mj-fast/mj', '/mj-turbo/mj']) {
        const answer = await submit(key, prefix, 'a heron --mock tasksteps=1');
        expect({ prefix, status: answer.status, code: answer.body.code }).toEqual({ prefix, status: 200, code: 1 });
      }
    });
  });
});
