import { ChannelType } from '@aigw/contracts';
import { jinaProvider } from '../../src/providers/jina/index.js';
import { providers, servesOperation } from '../../src/providers/registry.js';
import { channel, context, fixtureJson, fixtureText } from './support.js';

const jina = (overrides: Parameters<typeof context>[0] = {}) =>
  context({ upstreamModel: 'jina-embeddings-v3', requestedModel: 'jina-v3', channel: channel({ type: ChannelType.Jina }), ...overrides });
const headers = { 'Content-Type': 'application/json', Authorization: 'Bearer sk-upstream-key' };

describe('jina provider', () => {
  it('serves embeddings and rerank on type 38, and no chat', () => {
    expect(jinaProvider.operations).toEqual(['embeddings', 'rerank']);
    expect(jinaProvider.chat).toBeUndefined();
    expect(providers[ChannelType.Jina]).toBe(jinaProvider);
    expect(servesOperation(ChannelType.Jina, 'chat')).toBe(false);
    expect(servesOperation(ChannelType.Jina, 'rerank')).toBe(true);
  });

  it('forwards embeddings as the client sent them but for the model', () => {
    const body = { model: 'jina-v3', input: ['hello', 'goodbye'], task: 'retrieval.passage', dimensions: 256, encoding_format: 'base64' };
    expect(jinaProvider.passthrough!.request('/v1/embeddings', body, jina())).toEqual({
      method: 'POST',
      url: 'https://api.jina.ai/v1/embeddings',
      headers,
      body: JSON.stringify({ ...body, model: 'jina-embeddings-v3' }),
    });
  });

  it('forwards rerank (our /v1/rerank takes its shape), base_url as the endpoint override', () => {
    const body = { model: 'reranker', query: 'gateway billing', documents: ['a', { text: 'b' }], top_n: 1, return_documents: false };
    const ctx = jina({ upstreamModel: 'jina-reranker-v2-base-multilingual', channel: channel({ type: 38, base_url: 'https://jina.proxy/v1/' }) });
    expect(jinaProvider.passthrough!.request('/v1/rerank', body, ctx)).toEqual({
      method: 'POST',
      url: 'https://jina.proxy/v1/rerank',
      headers,
      body: JSON.stringify({ ...body, model: 'jina-reranker-v2-base-multilingual' }),
    });
  });

  it('reads the usage of an embeddings answer', () => {
    expect(jinaProvider.passthrough!.usage(fixtureJson('jina/embeddings-response.json'))).toEqual({ prompt_tokens: 9, completion_tokens: 0, cached_tokens: 0 });
    // A rerank answer has total_tokens only; the rerank operation reads it (operations/rerank.ts).
    expect(fixtureJson('jina/rerank-response.json')).toMatchObject({ usage: { total_tokens: 38 } });
  });

  it("normalises Jina's FastAPI errors: a detail text, or the fields that failed validation", () => {
    expect(jinaProvider.error(401, fixtureText('jina/error-401.json'))).toEqual({
      message: 'Failed to authenticate with the provided api key.',
      type: 'upstream_error',
      code: '401',
    });
    expect(jinaProvider.error(422, fixtureText('jina/error-422.json'))).toEqual({
      message: 'body.query: Field required',
      type: 'invalid_request_error',
      code: '422',
    });
    expect(jinaProvider.error(429, '{"error":{"message":"Rate limit reached, slow down","type":"requests"}}').message).toBe('Rate limit reached, slow down');
    expect(jinaProvider.error(503, '').message).toContain('503');
  });
});
