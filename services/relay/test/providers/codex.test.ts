import { ChannelType } from '@aigw/contracts';
import { codexProvider } from '../../src/providers/codex/index.js';
import { accessTokenExpiry, CODEX_CLIENT_ID, codexTokenExchange } from '../../src/providers/codex/auth.js';
import { codexError } from '../../src/providers/codex/error.js';
import { ChannelConfigurationError } from '../../src/providers/shared/url.js';
import type { AuthorizeTools, TokenExchange, UpstreamRequest } from '../../src/providers/types.js';
import { channel, context, fixtureJson, fixtureText } from './support.js';

const ACCOUNT = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** An access token shaped as OpenAI's (a JWT); only its claims matter here. */
const jwt = (claims: Record<string, unknown>) =>
  [{ alg: 'RS256', typ: 'JWT' }, claims].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.c2ln';
const keyOf = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ access_token: jwt({ exp: nowSeconds() + 3600 }), refresh_token: 'rt_stored', account_id: ACCOUNT, ...fields });
const codex = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ key: keyOf(), upstreamModel: 'gpt-5-codex', requestedModel: 'codex', stream: true, channel: channel({ type: ChannelType.Codex }), ...overrides });
const passthrough = codexProvider.passthrough!;

/** AuthorizeTools that record the exchange asked for and answer with a fixed token. */
function recordingTools() {
  const exchanges: TokenExchange[] = [];
  const tools: AuthorizeTools = {
    accessToken: async (exchange) => {
      exchanges.push(exchange);
      return 'refreshed-token';
    },
  };
  return { tools, exchanges };
}
const authorize = (request: UpstreamRequest, ctx: ReturnType<typeof codex>, tools: AuthorizeTools) => codexProvider.authorize!(request, ctx, tools);

describe('codex provider: responses request', () => {
  it("sends the Responses body to the ChatGPT backend with the Codex CLI's headers, streamed and stored nowhere", () => {
    const body = {
      model: 'codex',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Write a haiku about diffs.' }] }],
      reasoning: { effort: 'low', summary: 'auto' },
      tools: [],
      stream: true,
    };
    const request = passthrough.request('/v1/responses', body, codex());
    expect({ ...request, body: JSON.parse(request.body!) }).toEqual(fixtureJson('codex/responses-request.json'));
    // The token is added by authorize, never while building (and never in the URL).
    expect(request.headers.Authorization).toBeUndefined();
  });

  it('keeps the instructions given, drops the parameters the backend refuses and reports a store it cannot honour', () => {
    const request = passthrough.request(
      '/v1/responses',
      { model: 'codex', input: 'Hi', instructions: 'Be terse.', stream: true, store: true, max_output_tokens: 100, temperature: 0.2, top_p: 0.9 },
      codex(),
    );
    expect(JSON.parse(request.body!)).toEqual({ model: 'gpt-5-codex', input: 'Hi', instructions: 'Be terse.', stream: true, store: false, top_p: 0.9 });
    expect(request.warnings).toEqual([
      'parameter "max_output_tokens" is not supported by the Codex backend and was dropped',
      'parameter "temperature" is not supported by the Codex backend and was dropped',
      'store: the Codex backend keeps no responses; sent as false',
    ]);
  });

  it('honours base_url, with or without the backend path pasted', () => {
    for (const base of ['https://chatgpt.example.com', 'https://chatgpt.example.com/backend-api/', 'https://chatgpt.example.com/backend-api/codex']) {
      const ctx = codex({ channel: channel({ type: ChannelType.Codex, base_url: base }) });
      expect(passthrough.request('/v1/responses', { input: 'Hi', stream: true }, ctx).url).toBe('https://chatgpt.example.com/backend-api/codex/responses');
    }
  });

  it('asks for a stream even when the client does not (its whole answer is the response the stream ends with)', () => {
    const request = passthrough.request('/v1/responses', { model: 'codex', input: 'Hi' }, codex({ stream: false }));
    expect(JSON.parse(request.body!)).toMatchObject({ stream: true, store: false });
    expect(codexProvider.passthrough?.streamsOnly).toBe(true);
  });

  it('serves /v1/responses only, and names the field a malformed key lacks', () => {
    expect(() => passthrough.request('/v1/embeddings', { input: 'Hi' }, codex())).toThrow('the Codex provider serves no /v1/embeddings');
    expect(() => passthrough.request('/v1/responses', { input: 'Hi', stream: true }, codex({ key: 'sk-not-json' }))).toThrow(ChannelConfigurationError);
    expect(() => passthrough.request('/v1/responses', { input: 'Hi', stream: true }, codex({ key: JSON.stringify({ access_token: 'a' }) }))).toThrow(
      'the key lacks a valid account_id',
    );
    expect('get' in passthrough).toBe(false);
  });
});

describe('codex provider: access token', () => {
  const built = () => passthrough.request('/v1/responses', { input: 'Hi', stream: true }, codex());

  it('sends the stored access token while it is good for more than five minutes, without an exchange', async () => {
    const stored = jwt({ exp: nowSeconds() + 600 });
    const { tools, exchanges } = recordingTools();
    const signed = await authorize(built(), codex({ key: keyOf({ access_token: stored }) }), tools);
    expect(signed.headers.Authorization).toBe(`Bearer ${stored}`);
    expect(signed.url).not.toContain(stored);
    expect(exchanges).toEqual([]);
  });

  it("refreshes an expired token at OpenAI's token endpoint with the Codex client id, through the relay's cached exchange", async () => {
    const { tools, exchanges } = recordingTools();
    const signed = await authorize(built(), codex({ key: keyOf({ access_token: jwt({ exp: nowSeconds() + 120 }) }) }), tools);
    expect(signed.headers.Authorization).toBe('Bearer refreshed-token');
    expect(exchanges).toHaveLength(1);
    const request = exchanges[0]!.request as UpstreamRequest;
    expect(request).toEqual({
      method: 'POST',
      url: 'https://auth.openai.com/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `grant_type=refresh_token&refresh_token=rt_stored&client_id=${CODEX_CLIENT_ID}`,
    });
  });

  it("exchanges at the key's token_url when it names one (a test's fake), and reads the answer's lifetime", () => {
    const ctx = codex({ key: keyOf({ token_url: 'http://127.0.0.1:9/oauth/token' }) });
    const exchange = codexTokenExchange(ctx);
    expect((exchange.request as UpstreamRequest).url).toBe('http://127.0.0.1:9/oauth/token');
    const now = 1_700_000_000_000;
    const answer = fixtureJson('codex/refresh-answer.json') as { access_token: string };
    expect(exchange.parse(answer, now)).toEqual({ token: answer.access_token, expiresAt: now + 864_000_000 });
    // Without expires_in, the new token's own exp; without either, an hour.
    expect(exchange.parse({ access_token: jwt({ exp: 1_700_000_500 }) }, now)).toEqual({ token: expect.any(String), expiresAt: 1_700_000_500_000 });
    expect(exchange.parse({ access_token: 'opaque' }, now).expiresAt).toBe(now + 3_600_000);
    expect(() => exchange.parse({ error: 'invalid_grant' }, now)).toThrow('without an access_token');
  });

  it("reads the expiry from the token's exp, else the key's expired (RFC 3339), and sends a token that says neither", async () => {
    expect(accessTokenExpiry(jwt({ exp: 1_800_000_000 }), '2020-01-01T00:00:00Z')).toBe(1_800_000_000_000);
    expect(accessTokenExpiry('opaque-token', '2026-01-02T03:04:05Z')).toBe(Date.parse('2026-01-02T03:04:05Z'));
    expect(accessTokenExpiry('opaque-token')).toBeNull();

    const { tools, exchanges } = recordingTools();
    const expired = await authorize(built(), codex({ key: keyOf({ access_token: 'opaque-token', expired: '2020-01-01T00:00:00Z' }) }), tools);
    expect(expired.headers.Authorization).toBe('Bearer refreshed-token');
    const unknown = await authorize(built(), codex({ key: keyOf({ access_token: 'opaque-token' }) }), tools);
    expect(unknown.headers.Authorization).toBe('Bearer opaque-token');
    expect(exchanges).toHaveLength(1);
  });

  it('fails the channel when the token has expired and the key holds no refresh token', async () => {
    const { tools } = recordingTools();
    const key = JSON.stringify({ access_token: jwt({ exp: nowSeconds() - 10 }), account_id: ACCOUNT });
    await expect(authorize(built(), codex({ key }), tools)).rejects.toThrow('the access token has expired and the key has no refresh_token');
  });
});

describe('codex provider: error answers', () => {
  it("maps the backend's detail and usage-limit answers, the type from the status", () => {
    expect(codexError(401, fixtureText('codex/error-401.json'))).toEqual({
      message: 'Could not parse your authentication token. Please try signing in again.',
      type: 'authentication_error',
      code: '401',
    });
    expect(codexError(429, fixtureText('codex/error-429-usage-limit.json'))).toEqual({
      message: 'The usage limit has been reached',
      type: 'rate_limit_error',
      code: 'usage_limit_reached',
    });
    expect(codexError(503, '')).toMatchObject({ type: 'server_error', message: expect.stringContaining('503') });
  });

  it('reads the usage of a whole Responses answer, should one come', () => {
    expect(codexProvider.passthrough!.usage({ usage: { input_tokens: 12, output_tokens: 5, input_tokens_details: { cached_tokens: 4 } } })).toEqual({
      prompt_tokens: 12,
      completion_tokens: 5,
      cached_tokens: 4,
    });
    expect(codexProvider.passthrough!.usage({ id: 'resp_1' })).toBeNull();
  });
});
