import OpenAI from 'openai';
import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/**
 * Routing considers only channels whose provider serves the operation: an Anthropic channel
 * answers chat but never embeddings; with no capable channel the answer is a 503 naming the
 * operation and the model, and nothing is held, forwarded or billed.
 */
describe('operations and provider capabilities', () => {
  let world: RelayWorld;
  let billing: DataSource;
  let client: OpenAI;

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    billing = await openBillingDatabase(world.gateway.env);
    await world.addChannel({ name: 'anthropic-only', type: 14, models: 'mock-claude,mock-embed' });
    await world.addChannel({ name: 'openai-type', models: 'mock-embed' });
    await world.waitForModel('mock-claude');
    await world.waitForModel('mock-embed');
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  const upstreamCalls = (path: string) => world.mock.requests.filter((entry) => entry.path === path).length;

  it('answers 503 naming the operation and model when no channel of the group can serve it, and bills nothing', async () => {
    const before = upstreamCalls('/v1/embeddings');
    const failure = await client.embeddings.create({ model: 'mock-claude', input: 'hello' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((failure as InstanceType<typeof OpenAI.APIError>).message).toContain('no channel can serve embeddings for model mock-claude in group default');
    expect(upstreamCalls('/v1/embeddings')).toBe(before);
    expect(await billing.getRepository(LogEntity).countBy({ user_id: world.user.id, model_name: 'mock-claude' })).toBe(0);

    // The same model's chat goes to the Anthropic channel.
    const chat = await client.chat.completions.create({ model: 'mock-claude', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content?.length).toBeGreaterThan(0);
  });

  it('never tries an incapable channel: embeddings of a model both serve go to the OpenAI-type channel every time', async () => {
    const before = upstreamCalls('/v1/embeddings');
    for (let index = 0; index < 6; index++) {
      const answer = await client.embeddings.create({ model: 'mock-embed', input: `text ${index}` });
      expect(answer.data[0]?.embedding.length).toBeGreaterThan(0);
    }
    expect(upstreamCalls('/v1/embeddings')).toBe(before + 6);
    await waitFor(
      async () => (await billing.getRepository(LogEntity).countBy({ user_id: world.user.id, model_name: 'mock-embed', type: 2 })) === 6,
      10_000,
      'six usage logs',
    );
    const logs = await billing.getRepository(LogEntity).findBy({ user_id: world.user.id, model_name: 'mock-embed', type: 2 });
    const channelIds = new Set(logs.map((log) => log.channel_id));
    expect(channelIds.size).toBe(1);
  });
});
