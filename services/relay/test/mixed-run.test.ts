import type { DataSource } from 'typeorm';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { reconcile } from '../../billing/src/reconcile';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(90_000);

/**
 * Every operation at once, several times over: exactly one usage row per request, the balance
 * down by exactly the sum of the rows, and every balance equal to its ledger (reconcile).
 */
describe('a mixed run of every operation', () => {
  let world: RelayWorld;
  let billing: DataSource;

  beforeAll(async () => {
    world = await startRelayWorld('in-process');
    billing = await openBillingDatabase(world.gateway.env);
    await world.setOption('ModelRatio', JSON.stringify({ 'mock-*': 1, 'tts-1': 7.5, 'whisper-1': 15 }));
    await world.setOption('ModelPrice', JSON.stringify({ 'dall-e-2': 0.02 }));
    await world.addChannel({ name: 'openai', models: 'mock-gpt,mock-embed,dall-e-2,tts-1,whisper-1' });
    await world.addChannel({ name: 'siliconflow', type: 40, models: 'mock-rerank' });
    await world.addChannel({ name: 'anthropic', type: 14, models: 'mock-claude' });
    await world.addChannel({ name: 'gemini', type: 24, models: 'mock-gemini' });
    for (const model of ['mock-gpt', 'mock-rerank', 'mock-claude', 'mock-gemini', 'whisper-1']) await world.waitForModel(model);
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  const auth = () => ({ authorization: `Bearer ${world.apiKey}` });
  const json = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${world.baseUrl}${path}`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const form = (path: string, fields: Record<string, string>, file: string) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) data.append(name, value);
    data.append(file, new Blob([Buffer.alloc(4_000, 7)], { type: 'application/octet-stream' }), 'upload.bin');
    return fetch(`${world.baseUrl}${path}`, { method: 'POST', headers: auth(), body: data });
  };
  const calls: Array<() => Promise<Response>> = [
    () => json('/v1/chat/completions', { model: 'mock-gpt', messages: [{ role: 'user', content: 'chat' }] }),
    () => json('/v1/chat/completions', { model: 'mock-gpt', stream: true, messages: [{ role: 'user', content: 'chat stream' }] }),
    () => json('/v1/completions', { model: 'mock-gpt', prompt: 'complete me' }),
    () => json('/v1/embeddings', { model: 'mock-embed', input: ['one', 'two'] }),
    () => json('/v1/rerank', { model: 'mock-rerank', query: 'q', documents: ['a', 'b'] }),
    () => json('/v1/images/generations', { model: 'dall-e-2', prompt: 'a cat', n: 2, size: '512x512' }),
    () => form('/v1/images/edits', { model: 'dall-e-2', prompt: 'a hat' }, 'image'),
    () => json('/v1/audio/speech', { model: 'tts-1', input: 'Hello from the mixed run.', voice: 'alloy' }),
    () => form('/v1/audio/transcriptions', { model: 'whisper-1', response_format: 'srt' }, 'file'),
    () => json('/v1/responses', { model: 'mock-gpt', input: 'responses stream', stream: true }),
    () => json('/v1/messages', { model: 'mock-claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'claude' }] }),
    () => json('/v1beta/models/mock-gemini:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'gemini' }] }] }),
  ];

  it('records each request once, charges the balance their sum, and keeps the ledger reconciled', async () => {
    const before = await world.balance();
    const responses = await Promise.all(Array.from({ length: 3 }, () => calls.map((call) => call())).flat());
    const requestIds: string[] = [];
    for (const response of responses) {
      expect(response.status).toBe(200);
      await response.arrayBuffer(); // every answer read to its end
      requestIds.push(response.headers.get('x-oneapi-request-id')!);
    }
    expect(new Set(requestIds).size).toBe(calls.length * 3);

    const logs = billing.getRepository(LogEntity);
    await waitFor(async () => (await logs.countBy({ user_id: world.user.id, type: 2 })) >= requestIds.length, 20_000, 'every usage row');
    const rows = await logs.findBy({ user_id: world.user.id, type: 2 });
    expect(rows.map((row) => row.request_id).sort()).toEqual([...requestIds].sort());
    expect(rows.every((row) => row.quota > 0)).toBe(true);
    const charged = rows.reduce((sum, row) => sum + row.quota, 0);
    await waitFor(async () => (await world.balance()) === before - charged, 10_000, 'balance down by the charges');
    expect(await reconcile(billing)).toEqual([]);
  });
});
