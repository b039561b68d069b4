import fc from 'fast-check';
import { declaredRoutes, type DeclaredRoute } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { startMockUpstream, type MockUpstream } from '../../../tools/mock-upstream/server.mjs';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from './support/gateway';

jest.setTimeout(180_000);

/**
 * Bad input never makes a 5xx (tests D3 and D4, docs/security.md; issue 22.3). Every route the
 * services register (read from the app, so a new route is covered without touching this file)
 * gets a corpus of malformed, oversized, deeply nested, wrong-typed and unicode-heavy bodies,
 * query strings and path parameters, as an anonymous caller, a user and root, on the real
 * backend (PostgreSQL refuses more than SQLite does). Generated inputs come from fast-check
 * with a fixed seed and a bounded count, so a run is repeatable and a failure can be replayed.
 * Every answer must be below 500, and the gateway must still answer its health check after.
 */

const SEED = 22;

/** Field names this API uses, so generated bodies reach past "unknown field" into validation and logic. */
// prettier-ignore
const vocabulary = [
  'id', 'ids', 'user_id', 'username', 'password', 'password2', 'original_password', 'display_name', 'email', 'code', 'key', 'keys',
  'name', 'value', 'model', 'models', 'messages', 'prompt', 'input', 'n', 'best_of', 'max_tokens', 'max_completion_tokens', 'stream',
  'tools', 'system', 'group', 'groups', 'quota', 'quota_delta', 'expected_quota', 'remain_quota', 'unlimited_quota', 'expired_time',
  'status', 'role', 'action', 'type', 'base_url', 'priority', 'weight', 'tag', 'p', 'page_size', 'keyword', 'token', 'count',
  'amount', 'aff_code', 'content', 'channel_id', 'task_id', 'mj_id', 'start_timestamp', 'end_timestamp', 'model_mapping',
  'model_limits', 'allow_ips', 'url', 'secret', 'events', 'enabled', 'trade_no', 'method', 'credential', 'state', 'setting',
];

const weirdStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800x',
  '\u202eevil\u202c',
  `e${'\u0301'.repeat(2_000)}`,
  '😀'.repeat(500),
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🏳️‍🌈 زبان 中文',
  "' OR '1'='1",
  "'; SELECT pg_sleep(5)--",
  '../../../etc/passwd',
  '%2e%2e%2f',
  '#@?',
  'http://127.0.0.1:1/',
  'http://169.254.169.254/latest/meta-data',
  'file:///etc/passwd',
  '<script>alert(1)</script>',
  '{{7*7}}',
  'NaN',
  'Infinity',
  '-1',
  '1e400',
  'null',
  '__proto__',
  'constructor',
  'mock-gpt',
  'x'.repeat(70_000),
];
const weirdNumbers = [-1, 0, 1, 1.5, -0.5, 2 ** 31, 2 ** 53, 2 ** 63, -(2 ** 63), 1e308, -1e308];
const weirdValues: unknown[] = [...weirdStrings, ...weirdNumbers, true, false, null, [], {}, [[]], [{}], { '': '' }];

/** Path parameter values (`:id`, `:model`), already URL-encoded. */
const paramValues = [
  '0',
  '-1',
  '1',
  '2',
  '99999999999999999999',
  '1e400',
  'abc',
  'null',
  '%00',
  '%ff',
  '%',
  '..%2F..%2Fetc',
  encodeURIComponent('\u202e中'),
  encodeURIComponent("' OR 1=1--"),
  'x'.repeat(190),
];

interface Probe {
  /** How this input is named in a failure report. */
  name: string;
  query?: string;
  payload?: string | Buffer;
  contentType?: string;
}

const json = (name: string, value: unknown): Probe => ({ name, payload: JSON.stringify(value) });
const everyField = (value: unknown) => Object.fromEntries(vocabulary.map((field) => [field, value]));
const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** The same inputs for every route. */
const fixedProbes: Probe[] = [
  { name: 'no body' },
  { name: 'empty JSON body', payload: '' },
  { name: 'JSON null', payload: 'null' },
  { name: 'JSON array', payload: '[1,2]' },
  { name: 'JSON string', payload: '"x"' },
  { name: 'JSON number out of range', payload: '1e400' },
  { name: 'truncated JSON', payload: '{"model":' },
  { name: 'JSON with a BOM', payload: '\ufeff{"a":1}' },
  { name: 'invalid UTF-8', payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d]) },
  { name: 'duplicate keys', payload: '{"id":1,"id":"x","model":"a","model":[]}' },
  { name: 'prototype keys', payload: '{"__proto__":{"role":100},"constructor":{"prototype":{"x":1}},"id":{"__proto__":null}}' },
  { name: 'arrays nested 10,000 deep', payload: nestedArrays(10_000) },
  { name: 'every field nested 200 deep', payload: `{${vocabulary.map((field) => `"${field}":${nestedObjects(200)}`).join(',')}}` },
  json(
    '100,000 values',
    Array.from({ length: 100_000 }, (_, index) => index),
  ),
  json('a 16 KB string in every field', everyField('y'.repeat(16 * 1024))),
  json('unicode in every field', everyField('\u0000\ud800\u202e😀e\u0301\u0301中文'.repeat(50))),
  json('every field an empty array', everyField([])),
  json('every field an object', everyField({ a: 1 })),
  json('every field -1', everyField(-1)),
  json('every field 2^63', everyField(2 ** 63)),
  json('every field 1e308', everyField(1e308)),
  json('every field a string', everyField('1')),
  json('every field null', everyField(null)),
  json('every field true', everyField(true)),
  { name: 'text/plain body', payload: 'hello', contentType: 'text/plain' },
  { name: 'form body', payload: 'id=1&username=x', contentType: 'application/x-www-form-urlencoded' },
  { name: 'multipart body', payload: '--b\r\ncontent-disposition: form-data; name="a"\r\n\r\n1\r\n--b--\r\n', contentType: 'multipart/form-data; boundary=b' },
  { name: 'bad query numbers', query: 'p=-1&page_size=1e400&id=99999999999999999999&start_timestamp=-1&end_timestamp=NaN' },
  { name: 'bad query types', query: 'p=abc&page_size=&type=x&status=%00&channel_id=1.5&token_name=%27%20OR%20%271%27%3D%271' },
  { name: 'repeated query keys', query: 'p=1&p=2&keyword=a&keyword=b&id=1&id=2' },
  { name: 'malformed percent-encoding', query: '%zz=1&a=%&b=%ff%fe&c=%c0%af' },
  { name: 'bracket query keys', query: '__proto__[role]=100&constructor[prototype][x]=1&a[b][c]=1' },
  { name: 'long query value', query: `keyword=${'q'.repeat(20_000)}` },
];

/** The relay's operations also get these: past their first checks, they reach the token counter and the converters. */
const relayProbes: Probe[] = [
  {
    name: 'tool schema nested 10,000 deep',
    payload: `{"model":"mock-gpt","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nestedObjects(10_000)}}},{"name":"g","input_schema":${nestedObjects(10_000)}}]}`,
  },
  // Long runs without a space once took the token counter minutes (its merge is quadratic in a run's length).
  json('512 KB texts', {
    model: 'mock-gpt',
    messages: [{ role: 'user', content: 'z'.repeat(512 * 1024) }],
    prompt: '!'.repeat(512 * 1024),
    input: ['中'.repeat(100_000)],
  }),
  json('unicode-heavy chat', {
    model: 'mock-gpt',
    messages: [
      { role: 'user', content: `e${'\u0301'.repeat(100_000)}` },
      { role: 'user', content: '\u0000\ud800\udc00\udfff\u202e😀\u200d'.repeat(10_000) },
      {
        role: 'user',
        content: [
          { type: 'text', text: '中文字符'.repeat(12_500) },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${'\u00ff'.repeat(100)}` } },
        ],
      },
    ],
    prompt: '🏳️‍🌈'.repeat(20_000),
    input: ['\u0000'.repeat(50_000), 'ß'.repeat(50_000)],
  }),
];

const valueArbitrary: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...weirdValues) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: -3, max: 5 }) },
);
const keyArbitrary = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...vocabulary) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
const fieldsArbitrary = fc.dictionary(keyArbitrary, valueArbitrary, { maxKeys: 8 });

/** A relay request that passes the first checks (model, messages) so the rest of it is reached. */
const relayFields = [
  'n',
  'best_of',
  'max_tokens',
  'tools',
  'tool_choice',
  'stream_options',
  'response_format',
  'stop',
  'system',
  'temperature',
  'user',
  'logit_bias',
];
const relayBodyArbitrary = fc
  .record(
    {
      model: fc.constantFrom('mock-gpt', 'mock-gpt', 'mock-embed', 'no-such-model'),
      messages: fc.array(
        fc.record(
          {
            role: fc.constantFrom('user', 'system', 'assistant', 'tool', 'x'),
            content: fc.oneof(
              fc.string(),
              valueArbitrary,
              fc.array(
                fc.record(
                  { type: fc.constantFrom('text', 'image_url', 'tool_use', 'x'), text: valueArbitrary, image_url: valueArbitrary },
                  { requiredKeys: ['type'] },
                ),
                { maxLength: 3 },
              ),
            ),
            tool_calls: valueArbitrary,
            name: valueArbitrary,
          },
          { requiredKeys: ['role'] },
        ),
        { minLength: 1, maxLength: 3 },
      ),
      prompt: fc.oneof(fc.string(), valueArbitrary),
      input: fc.oneof(fc.string(), valueArbitrary),
      max_tokens: fc.oneof(fc.integer({ min: 1, max: 20 }), valueArbitrary),
      stream: fc.boolean(),
    },
    { requiredKeys: ['model', 'messages'] },
  )
  .chain((body) => fc.dictionary(fc.constantFrom(...relayFields), valueArbitrary, { maxKeys: 3 }).map((extra) => ({ ...body, ...extra })));

const queryArbitrary = fc
  .dictionary(keyArbitrary, fc.oneof(fc.constantFrom(...weirdStrings.filter((text) => text.length < 5_000)), fc.string({ unit: 'binary', maxLength: 30 })), {
    maxKeys: 5,
  })
  .map((entries) =>
    Object.entries(entries)
      .map(([key, value]) => `${percentEncoded(key)}=${percentEncoded(value)}`)
      .join('&'),
  );

/** Every UTF-8 byte of the text as %XX (a lone surrogate goes as U+FFFD's bytes). */
function percentEncoded(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

/** Generated probes for one route: repeatable (fixed seed, fixed count). */
function generatedProbes(route: DeclaredRoute, count: number, seed: number): Probe[] {
  const isRelay = route.service === 'relay' && route.method === 'POST';
  const bodies = fc.sample(isRelay ? fc.oneof({ weight: 3, arbitrary: relayBodyArbitrary }, { weight: 1, arbitrary: fieldsArbitrary }) : fieldsArbitrary, {
    seed,
    numRuns: isRelay ? count * 3 : count,
  });
  const queries = fc.sample(queryArbitrary, { seed: seed + 1, numRuns: count });
  return bodies.map((body, index) => ({ name: `generated #${index} (seed ${seed})`, payload: JSON.stringify(body), query: queries[index] }));
}

/** Fills each `:param` (and a wildcard) of a route with a fuzz value. */
function fillPath(url: string, index: number): string {
  let used = 0;
  return url.replace(/:[A-Za-z_]+|\*/g, () => paramValues[(index + used++) % paramValues.length]!);
}

/**
 * Routes that delete things or change who the callers are go after the others, and those that
 * end the callers' sessions last of all, so every other route runs signed in.
 */
function disruption(route: DeclaredRoute): number {
  if (route.url === '/api/user/logout') return 3;
  if (route.url === '/api/user/self' && route.method === 'DELETE') return 2;
  return route.method === 'DELETE' || /\/(manage|2fa\/(enable|disable))$|^\/api\/user\/$|^\/api\/option\/|passkey/.test(route.url) ? 1 : 0;
}

interface Principal {
  name: 'anonymous' | 'user' | 'root';
  headers: Record<string, string>;
  /** Generated probes per route. */
  generated: number;
}

describe('fuzz: bad input never answers 5xx', () => {
  let gateway: TestGateway;
  let mock: MockUpstream;
  const principals: Principal[] = [];

  const headersOf = (session: Session, apiKey: string) => ({
    cookie: `session=${session.cookie}`,
    'new-api-user': String(session.id),
    authorization: `Bearer ${apiKey}`,
    'x-api-key': apiKey,
  });

  beforeAll(async () => {
    mock = await startMockUpstream({ models: ['mock-gpt', 'mock-embed'], maxRecorded: 0 });
    gateway = await startGateway('real');
    const root = await gateway.login('root', ROOT_PASSWORD);
    const setOption = async (key: string, value: string | boolean) => {
      const answer = (await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json();
      if (!answer.success) throw new Error(`option ${key}: ${answer.message}`);
    };
    await setOption('AllowPrivateNetworkUpstreams', true);
    await setOption('ModelRatio', JSON.stringify({ 'mock-*': 1 }));
    // The mock is on loopback: the channel's own flag (rule R2), not only the option's default, which reaches channels over NATS a moment later.
    const channel = (
      await gateway.call('POST', '/api/channel/', {
        session: root,
        body: { type: 1, name: 'mock', key: 'mock-key', base_url: mock.url, models: 'mock-gpt,mock-embed', group: 'default', allow_private_network: true },
      })
    ).json();
    if (!channel.success) throw new Error(`channel: ${channel.message}`);
    // The task APIs too (Midjourney, Suno), so their submits reach an upstream rather than "no channel".
    const mjModels = [
      'imagine',
      'describe',
      'blend',
      'shorten',
      'upload',
      'video',
      'edits',
      'upscale',
      'variation',
      'reroll',
      'modal',
      'zoom',
      'pan',
      'inpaint',
    ]
      .map((action) => `mj_${action}`)
      .concat('swap_face', 'mj_low_variation', 'mj_high_variation', 'mj_custom_zoom');
    for (const [type, name, models] of [
      [2, 'mock-mj', mjModels.join(',')],
      [36, 'mock-suno', 'suno_music,suno_lyrics'],
    ] as const) {
      const added = (
        await gateway.call('POST', '/api/channel/', {
          session: root,
          body: { type, name, key: 'mock-key', base_url: mock.url, models, group: 'default', allow_private_network: true },
        })
      ).json();
      if (!added.success) throw new Error(`channel: ${added.message}`);
    }

    await gateway.register('fuzzer', 'fuzzer-password');
    const user = await gateway.login('fuzzer', 'fuzzer-password');
    const key = async (session: Session) => {
      await waitFor(async () => (await gateway.call('GET', '/api/user/self', { session })).json().success === true, 10_000, 'account');
      await gateway.call('PUT', '/api/user/', { session: root, body: { id: session.id, quota: 100_000_000 } });
      const created = (await gateway.call('POST', '/api/token/', { session, body: { name: 'fuzz', unlimited_quota: true } })).json();
      if (!created.success) throw new Error(`token: ${created.message}`);
      return created.data[0].key as string;
    };
    const userKey = await key(user);
    const rootKey = await key(root);
    // The relay serves the mock model to both keys before the fuzzing starts.
    await waitFor(
      async () =>
        (
          await gateway.call('POST', '/v1/chat/completions', {
            headers: { authorization: `Bearer ${userKey}` },
            body: { model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }] },
          })
        ).statusCode === 200,
      10_000,
      'relay ready',
    );
    await waitFor(
      async () => {
        const listed = (await gateway.call('GET', '/v1/models', { headers: { authorization: `Bearer ${userKey}` } })).json<{ data?: Array<{ id: string }> }>();
        return ['mj_imagine', 'suno_music'].every((model) => listed.data?.some((entry) => entry.id === model));
      },
      10_000,
      'task channels routable',
    );

    principals.push(
      { name: 'anonymous', headers: {}, generated: 4 },
      { name: 'user', headers: headersOf(user, userKey), generated: 10 },
      { name: 'root', headers: headersOf(root, rootKey), generated: 10 },
    );
  });

  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
  });

  it('answers every route with < 500 for every bad input, and stays up', async () => {
    // The services' routes as registered, and the gateway's own (health, the OpenAPI document and its page, the console's fallback, unknown paths).
    const gatewayRoutes: DeclaredRoute[] = [
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['GET', '/api/openapi.json'],
      ['GET', '/api/docs/'],
      ['GET', '/api/docs/json'],
      ['GET', '/api/docs/yaml'],
      ['GET', '/api/docs/static/*'],
      ['GET', '/*'],
      ['POST', '/v1/*'],
      ['PUT', '/api/*'],
    ].map(([method, url]) => ({ service: 'gateway', method: method!, url: url!, access: 'public' }));
    const routes = [...declaredRoutes(gateway.app), ...gatewayRoutes].sort((a, b) => disruption(a) - disruption(b));
    expect(routes.length).toBeGreaterThan(100);
    const failures: string[] = [];
    let sent = 0;
    for (const [routeIndex, route] of routes.entries()) {
      for (const principal of principals) {
        const relayOperation = route.service === 'relay' && route.method === 'POST';
        const probes = [...fixedProbes, ...(relayOperation ? relayProbes : []), ...generatedProbes(route, principal.generated, SEED * 1000 + routeIndex)];
        for (const [index, probe] of probes.entries()) {
          const path = fillPath(route.url, index);
          const url = probe.query ? `${path}?${probe.query}` : path;
          const headers: Record<string, string> = { ...principal.headers };
          if (probe.payload !== undefined) headers['content-type'] = probe.contentType ?? 'application/json';
          const response = await gateway.app.inject({
            method: route.method as 'GET',
            url,
            headers,
            ...(probe.payload !== undefined && route.method !== 'GET' ? { payload: probe.payload } : {}),
          });
          sent += 1;
          if (response.statusCode >= 500) {
            failures.push(
              `${route.method} ${route.url} as ${principal.name}, ${probe.name} (${url.slice(0, 120)}): ${response.statusCode} ${response.body.slice(0, 200)}`,
            );
          }
        }
      }
    }
    expect({ sent: sent > 5_000, failures }).toEqual({ sent: true, failures: [] });
    expect((await gateway.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await gateway.app.inject({ method: 'GET', url: '/api/status' })).statusCode).toBe(200);
  });
});
