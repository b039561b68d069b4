import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock's count (docs in tools/mock-upstream/README.md): ceil(characters / 4), the query once per document. */
const mockTokens = (query: string, documents: string[]) => Math.ceil(documents.reduce((sum, document) => sum + query.length + document.length, 0) / 4);

/** `POST /v1/rerank` (Jina's shape) through a SiliconFlow channel: forwarded, answered, and billed by tokens or per call. */
describe('rerank', () => {
  let world: RelayWorld;
  let billing: DataSource;

  const rerank = async (body: Record<string, unknown>) => {
    const response = await fetch(`${world.baseUrl}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const logOf = async (model: string) => {
    await waitFor(
      async () => (await billing.getRepository(LogEntity).countBy({ user_id: world.user.id, model_name: model, type: 2 })) > 0,
      10_000,
      'usage log',
    );
    return billing.getRepository(LogEntity).findOneByOrFail({ user_id: world.user.id, model_name: model, type: 2 });
  };

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    billing = await openBillingDatabase(world.gateway.env);
    // An OpenAI-type channel carries the models too, and must never be tried for rerank.
    await world.addChannel({ name: 'openai-type', models: 'mock-rerank,mock-rerank-priced', priority: 10 });
    await world.addChannel({ name: 'siliconflow', type: 40, models: 'mock-rerank,mock-rerank-priced' });
    await world.setOption('ModelPrice', JSON.stringify({ 'mock-rerank-priced': 0.002 }));
    await world.waitForModel('mock-rerank');
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  it('orders the documents as the upstream does and bills the tokens it reports', async () => {
    const query = 'gateway billing';
    const documents = ['a poem about the sea', 'the gateway bills every request', 'billing of a gateway, exactly'];
    const before = world.mock.requests.filter((entry) => entry.path === '/v1/rerank').length;
    const answer = await rerank({ model: 'mock-rerank', query, documents, top_n: 2 });
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((result: { index: number }) => result.index)).toEqual([2, 1]);
    expect(answer.body.results[0].document).toEqual({ text: documents[2] });
    expect(answer.body.usage.total_tokens).toBe(mockTokens(query, documents));
    expect(world.mock.requests.filter((entry) => entry.path === '/v1/rerank').length).toBe(before + 1);

    // Model ratio 1 (mock-*), group ratio 1: the charge is the prompt tokens, nothing for a completion.
    const log = await logOf('mock-rerank');
    expect(log).toMatchObject({ prompt_tokens: mockTokens(query, documents), completion_tokens: 0, quota: mockTokens(query, documents) });
  });

  it('charges a model with a ModelPrice per call, whatever its tokens', async () => {
    const answer = await rerank({ model: 'mock-rerank-priced', query: 'q', documents: ['one', 'two'] });
    expect(answer.status).toBe(200);
    // 0.002 USD x QuotaPerUnit 500,000 x group ratio 1.
    expect((await logOf('mock-rerank-priced')).quota).toBe(1_000);
  });

  it.each([
    [{ model: 'mock-rerank', documents: ['x'] }, 'query'],
    [{ model: 'mock-rerank', query: 'q', documents: [] }, 'documents'],
    [{ model: 'mock-rerank', query: 'q', documents: [{ title: 'no text' }] }, 'documents'],
    [{ model: 'mock-rerank', query: 'q', documents: ['a', 'b'], top_n: 3 }, 'top_n'],
  ])('answers 400 naming the field for %j', async (body, param) => {
    const answer = await rerank(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ param, type: 'invalid_request_error' });
  });
});
