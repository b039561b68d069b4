import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { vertexProvider } from '../../src/providers/vertex/index';
import { familyOf, regionOf, serviceAccount } from '../../src/providers/vertex/api';
import { vertexTokenExchange } from '../../src/providers/vertex/auth';
import { ChannelConfigurationError } from '../../src/providers/shared/url';
import type { AuthorizeTools, TokenExchange } from '../../src/providers/types';
import { channel, context } from './support';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ACCOUNT = {
  type: 'service_account',
  project_id: 'acme-ai',
  private_key_id: 'key-1',
  private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  client_email: 'relay@acme-ai.iam.gserviceaccount.com',
};
const KEY = JSON.stringify(ACCOUNT);
const vertex = (model: string, overrides: Parameters<typeof context>[0] = {}) =>
  context({ key: KEY, upstreamModel: model, requestedModel: model, channel: channel({ type: 41, other: 'us-central1' }), ...overrides });

describe('vertex configuration', () => {
  it('reads a service-account key and names what is wrong with one', () => {
    expect(serviceAccount(channel({ type: 41 }), KEY)).toMatchObject({ project_id: 'acme-ai', client_email: ACCOUNT.client_email });
    expect(() => serviceAccount(channel({ type: 41, id: 4 }), 'sk-not-json')).toThrow(ChannelConfigurationError);
    expect(() => serviceAccount(channel({ type: 41, id: 4 }), 'sk-not-json')).toThrow('channel 4 (Vertex AI) needs a service-account JSON key');
    expect(() => serviceAccount(channel({ type: 41, id: 4 }), JSON.stringify({ ...ACCOUNT, project_id: undefined }))).toThrow(/lacks a valid project_id/);
  });

  it('takes the region as text or per model from JSON, with a default', () => {
    expect(regionOf(channel({ other: 'europe-west4' }), 'gemini-2.0-flash')).toBe('europe-west4');
    const map = channel({ other: JSON.stringify({ default: 'us-central1', 'claude-sonnet-4-5@20250929': 'us-east5', 'my-claude': 'europe-west1' }) });
    expect(regionOf(map, 'claude-sonnet-4-5@20250929')).toBe('us-east5');
    expect(regionOf(map, 'claude-sonnet-4-5@20250929-mapped', 'my-claude')).toBe('europe-west1');
    expect(regionOf(map, 'gemini-2.0-flash')).toBe('us-central1');
    expect(regionOf(channel({ other: 'global' }), 'gemini-2.5-pro')).toBe('global');
    expect(() => regionOf(channel({ id: 5, other: '' }), 'gemini-2.0-flash')).toThrow(/channel 5 \(Vertex AI\) has no valid region for gemini-2.0-flash/);
    expect(() => regionOf(channel({ other: '{"default": ' }), 'm')).toThrow(/not valid JSON/);
  });

  it('tells Claude, Gemini and partner models apart', () => {
    expect(familyOf('claude-3-5-sonnet-v2@20241022')).toBe('anthropic');
    expect(familyOf('gemini-2.5-flash')).toBe('gemini');
    expect(familyOf('meta/llama-3.1-405b-instruct-maas')).toBe('openai');
  });
});

describe('vertex requests', () => {
  const chat = { model: 'x', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] };

  it("sends Claude to rawPredict with Vertex's anthropic_version and no model, streams to streamRawPredict", () => {
    const model = 'claude-3-5-sonnet-v2@20241022';
    const request = vertexProvider.chat.request(chat, vertex(model));
    expect(request.url).toBe(
      `https://us-central1-aiplatform.googleapis.com/v1/projects/acme-ai/locations/us-central1/publishers/anthropic/models/${encodeURIComponent(model)}:rawPredict`,
    );
    const body = JSON.parse(request.body!);
    expect(body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 64 });
    expect(body).not.toHaveProperty('model');
    expect(vertexProvider.chat.request({ ...chat, stream: true }, vertex(model, { stream: true })).url).toMatch(/:streamRawPredict$/);
    const native = vertexProvider.messages!.request(
      { model, max_tokens: 5, messages: [], system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }] },
      vertex(model),
    );
    expect(JSON.parse(native.body!)).toEqual({
      max_tokens: 5,
      messages: [],
      system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }],
      anthropic_version: 'vertex-2023-10-16',
    });
  });

  it('sends Gemini to generateContent (streams as SSE), natively for Gemini clients, and honours base_url and the global region', () => {
    const request = vertexProvider.chat.request(chat, vertex('gemini-2.0-flash', { stream: true }));
    expect(request.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/acme-ai/locations/us-central1/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse',
    );
    expect(JSON.parse(request.body!)).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
    const native = vertexProvider.gemini!.request(
      'generateContent',
      { contents: [] },
      vertex('gemini-2.0-flash', { channel: channel({ type: 41, other: 'global', base_url: 'https://vertex.proxy.internal/' }) }),
    );
    expect(native.url).toBe('https://vertex.proxy.internal/v1/projects/acme-ai/locations/global/publishers/google/models/gemini-2.0-flash:generateContent');
    expect(vertexProvider.gemini!.request('generateContent', {}, vertex('gemini-2.5-pro', { channel: channel({ type: 41, other: 'global' }) })).url).toMatch(
      /^https:\/\/aiplatform\.googleapis\.com\//,
    );
    expect(vertexProvider.gemini!.serves!(vertex('claude-x'))).toBe(false);
    expect(vertexProvider.messages!.serves!(vertex('gemini-x'))).toBe(false);
  });

  it('sends partner models to the OpenAI-compatible endpoint as OpenAI chat', () => {
    const request = vertexProvider.chat.request(chat, vertex('meta/llama-3.1-8b-instruct-maas'));
    expect(request.url).toBe('https://us-central1-aiplatform.googleapis.com/v1/projects/acme-ai/locations/us-central1/endpoints/openapi/chat/completions');
    expect(JSON.parse(request.body!)).toMatchObject({ model: 'meta/llama-3.1-8b-instruct-maas', messages: chat.messages });
  });
});

describe('vertex authorization', () => {
  it("signs a JWT bearer assertion with the account's key: RS256, iss, aud, cloud-platform scope, an hour", async () => {
    const exchange = vertexTokenExchange(vertex('gemini-2.0-flash'));
    const call = typeof exchange.request === 'function' ? await exchange.request() : exchange.request;
    expect(call).toMatchObject({
      method: 'POST',
      url: 'https://oauth2.googleapis.com/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const form = new URLSearchParams(call.body);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [header, claims, signature] = form.get('assertion')!.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'key-1' });
    const payload = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, number | string>;
    expect(payload).toMatchObject({
      iss: ACCOUNT.client_email,
      aud: 'https://oauth2.googleapis.com/token',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
    });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(3600);
    const publicKey = createPublicKey(privateKey);
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(exchange.parse({ access_token: 'ya29.x', expires_in: 3599 }, 1_000)).toEqual({ token: 'ya29.x', expiresAt: 1_000 + 3_599_000 });
    expect(() => exchange.parse({ error: 'invalid_grant' }, 1_000)).toThrow(/access_token/);
  });

  it("uses the account's own token_uri, and puts the token in the Authorization header", async () => {
    const custom = vertex('gemini-2.0-flash', { key: JSON.stringify({ ...ACCOUNT, token_uri: 'https://sts.internal/token' }) });
    const exchange = vertexTokenExchange(custom);
    expect((typeof exchange.request === 'function' ? await exchange.request() : exchange.request).url).toBe('https://sts.internal/token');
    let asked: TokenExchange | undefined;
    const tools: AuthorizeTools = {
      accessToken: async (request) => {
        asked = request;
        return 'ya29.cached';
      },
    };
    const request = vertexProvider.chat.request({ model: 'g', messages: [{ role: 'user', content: 'Hi' }] }, custom);
    const authorized = await vertexProvider.authorize!(request, custom, tools);
    expect(authorized.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer ya29.cached' });
    expect(asked?.scope).toBe('');
  });

  it("maps Google's errors (auth failures are authentication errors)", () => {
    expect(
      vertexProvider.error(401, '{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}'),
    ).toMatchObject({
      message: 'Request had invalid authentication credentials.',
    });
    expect(vertexProvider.error(429, '{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}').message).toBe('Quota exceeded');
  });
});
