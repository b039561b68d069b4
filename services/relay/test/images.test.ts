import OpenAI, { toFile } from 'openai';
import { waitFor } from '@aigw/platform/testing';
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/** The mock's tiny PNG (tools/mock-upstream/routes/images.mjs) starts with the PNG signature. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** What a client uploads: any bytes do for the mock. */
const upload = Buffer.concat([PNG_SIGNATURE, Buffer.alloc(64, 7)]);
/** Small, so a test can go over it (RELAY_UPLOAD_LIMIT_BYTES). */
const UPLOAD_LIMIT = 64 * 1024;

/**
 * The mock's gpt-image usage (tools/mock-upstream/README.md, "Images"): input = ceil(prompt
 * characters / 4) + 100 per uploaded image, output = OpenAI's tokens per image of the quality and
 * size, times n (low 1024x1024: 272).
 */
const mockImageUsage = (prompt: string, uploads: number, outputPerImage: number, n: number) => ({
  input: Math.ceil(prompt.length / 4) + 100 * uploads,
  output: outputPerImage * n,
});

/**
 * OpenAI's image APIs through the relay with the official client: generations (url and b64_json),
 * edits and variations (multipart), priced per image with size and quality multipliers, or by
 * tokens for gpt-image models without a ModelPrice.
 */
describe('images', () => {
  let world: RelayWorld;
  let client: OpenAI;
  let openAiChannel: number;
  let azureChannel: number;

  const balance = () => world.balance();
  /** The request's log row, once the balance went down by exactly its quota. */
  const billed = async (requestId: string, before: number) => {
    const log = await world.usageLog(requestId);
    await waitFor(async () => (await balance()) === before - log.quota, 10_000, 'balance applied');
    return { ...log, other: JSON.parse(log.other) as Record<string, unknown> };
  };
  const imageRequests = () => world.mock.requests.filter((entry) => entry.path.includes('/images/'));
  const send = async (path: string, body: string | FormData, json = true) => {
    const response = await fetch(`${world.baseUrl}/v1/images/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error: { message: string; param?: string; type: string } } };
  };
  const form = (fields: Record<string, string | Blob>) => {
    const data = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value === 'string') data.append(name, value);
      else data.append(name, value, 'a.png');
    }
    return data;
  };

  beforeAll(async () => {
    world = await startRelayWorld('in-process', { env: { RELAY_UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT) } });
    // An Anthropic channel carries the image models at a higher priority: it serves no image API,
    // so routing must never try it (it alone carries `claude-only-image`).
    await world.addChannel({ name: 'anthropic', type: 14, key: 'anthropic-key', models: 'dall-e-3,dall-e-2,gpt-image-1,claude-only-image', priority: 10 });
    openAiChannel = await world.addChannel({ name: 'openai', models: 'dall-e-3,dall-e-2,gpt-image-1', priority: 0 });
    azureChannel = await world.addChannel({ name: 'azure', type: 3, key: 'azure-key', other: '2025-04-01-preview', models: 'gpt-image-1-mini' });
    await world.setOption('ModelPrice', JSON.stringify({ 'dall-e-3': 0.04, 'dall-e-2': 0.02, 'claude-only-image': 0.04 }));
    await world.setOption('ModelRatio', JSON.stringify({ 'mock-*': 1, 'gpt-image-1': 2.5, 'gpt-image-1-mini': 1 }));
    await world.setOption('CompletionRatio', JSON.stringify({ 'mock-*': 2, 'gpt-image-1': 8, 'gpt-image-1-mini': 4 }));
    await waitFor(
      async () => {
        const options = (await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data;
        return options?.ModelPrice?.['dall-e-3'] === 0.04 && options?.CompletionRatio?.['gpt-image-1-mini'] === 4;
      },
      10_000,
      'image prices',
    );
    for (const model of ['dall-e-3', 'gpt-image-1', 'gpt-image-1-mini', 'claude-only-image']) await world.waitForModel(model);
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('generates dall-e-3 hd 1792x1024 images as URLs, billed 0.04 x size 2 x quality 1.5 x n 2', async () => {
    const before = await balance();
    const { data: answer, response } = await client.images
      .generate({ model: 'dall-e-3', prompt: 'a lighthouse at dusk', size: '1792x1024', quality: 'hd', n: 2, response_format: 'url' })
      .withResponse();
    expect(answer.data).toEqual([{ url: 'https://mock.invalid/images/1.png' }, { url: 'https://mock.invalid/images/2.png' }]);

    const received = imageRequests().at(-1)!;
    expect(received.path).toBe('/v1/images/generations');
    expect(received.body).toEqual({ model: 'dall-e-3', prompt: 'a lighthouse at dusk', size: '1792x1024', quality: 'hd', n: 2, response_format: 'url' });
    expect(received.headers.authorization).toBe('Bearer mock-key');

    const log = await billed(response.headers.get('x-oneapi-request-id')!, before);
    // 0.04 USD x 2 x 1.5 x 2 = 0.24 USD, x QuotaPerUnit 500,000, group ratio 1.
    expect(log.quota).toBe(120_000);
    expect(log.content).toContain('image size 1792x1024, quality hd, n 2');
    expect(log.other).toMatchObject({ model_price: 0.04, image: true, image_count: 2, image_size_ratio: 2, image_quality_ratio: 1.5 });
    // The Anthropic channel (priority 10) was never tried.
    expect(log.other.admin_info).toEqual({ use_channel: [openAiChannel] });
  });

  it('passes a b64_json answer through byte for byte', async () => {
    const before = await balance();
    const response = await fetch(`${world.baseUrl}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'dall-e-2', prompt: 'a small cat', size: '256x256', n: 3, response_format: 'b64_json' }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const answer = JSON.parse(text) as { created: number; data: Array<{ b64_json: string }> };
    expect(text).toBe(JSON.stringify({ created: answer.created, data: answer.data }));
    expect(answer.data).toHaveLength(3);
    for (const image of answer.data) expect(Buffer.from(image.b64_json, 'base64').subarray(0, 8)).toEqual(PNG_SIGNATURE);

    const log = await billed(response.headers.get('x-oneapi-request-id')!, before);
    expect(log.quota).toBe(12_000); // 0.02 x size 0.4 x n 3 x 500,000
  });

  it('bills gpt-image-1 without a ModelPrice by the tokens it reports', async () => {
    const before = await balance();
    const prompt = 'a watercolor fox';
    const { data: answer, response } = await client.images.generate({ model: 'gpt-image-1', prompt, quality: 'low', size: '1024x1024', n: 2 }).withResponse();
    expect(answer.data?.every((image) => Buffer.from(image.b64_json!, 'base64').subarray(0, 8).equals(PNG_SIGNATURE))).toBe(true);
    const usage = mockImageUsage(prompt, 0, 272, 2);
    expect(answer.usage).toMatchObject({ input_tokens: usage.input, output_tokens: usage.output });

    const log = await billed(response.headers.get('x-oneapi-request-id')!, before);
    expect(log).toMatchObject({ prompt_tokens: usage.input, completion_tokens: usage.output });
    // (input + output x completion ratio 8) x model ratio 2.5: (4 + 544 x 8) x 2.5.
    expect(log.quota).toBe((usage.input + usage.output * 8) * 2.5);
    expect(log.quota).toBe(10_890);
    expect(log.other).toMatchObject({ model_ratio: 2.5, completion_ratio: 8, model_price: -1, image: true, image_count: 2, usage_source: 'upstream' });
  });

  it('edits an uploaded image (multipart), sending the file and the fields upstream', async () => {
    const before = await balance();
    const { data: answer, response } = await client.images
      .edit({
        model: 'dall-e-2',
        image: await toFile(upload, 'a.png', { type: 'image/png' }),
        prompt: 'add a hat',
        n: 2,
        size: '512x512',
        response_format: 'url',
      })
      .withResponse();
    expect(answer.data).toHaveLength(2);

    const received = imageRequests().at(-1)!;
    expect(received.path).toBe('/v1/images/edits');
    expect(received.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(received.headers.authorization).toBe('Bearer mock-key');
    const { image, ...fields } = received.body as Record<string, unknown>;
    expect(fields).toEqual({ model: 'dall-e-2', prompt: 'add a hat', n: '2', size: '512x512', response_format: 'url' });
    expect(image).toBeInstanceOf(Blob);
    expect((image as File).name).toBe('a.png');
    expect((image as File).type).toBe('image/png');
    expect(Buffer.from(await (image as File).arrayBuffer())).toEqual(upload);

    const log = await billed(response.headers.get('x-oneapi-request-id')!, before);
    expect(log.quota).toBe(9_000); // 0.02 x size 0.45 x n 2 x 500,000
    expect(log.other).toMatchObject({ image: true, image_count: 2, image_size_ratio: 0.45 });
  });

  it('edits several images with gpt-image-1 (image[]), billed by tokens', async () => {
    const before = await balance();
    const prompt = 'combine these into a gift basket';
    const images = [await toFile(upload, 'a.png', { type: 'image/png' }), await toFile(upload, 'b.png', { type: 'image/png' })];
    const { data: answer, response } = await client.images
      .edit({ model: 'gpt-image-1', image: images, prompt, quality: 'low', size: '1024x1024' })
      .withResponse();
    const usage = mockImageUsage(prompt, 2, 272, 1);
    expect(answer.usage).toMatchObject({ input_tokens: usage.input, output_tokens: usage.output });
    const received = imageRequests().at(-1)!;
    expect((received.body['image[]'] as File[]).map((file) => file.name)).toEqual(['a.png', 'b.png']);

    const log = await billed(response.headers.get('x-oneapi-request-id')!, before);
    expect(log.quota).toBe((usage.input + usage.output * 8) * 2.5); // (208 + 272 x 8) x 2.5
  });

  it('creates a variation of an uploaded image', async () => {
    const before = await balance();
    const { data: answer, response } = await client.images
      .createVariation({ model: 'dall-e-2', image: await toFile(upload, 'a.png', { type: 'image/png' }), size: '256x256', response_format: 'b64_json' })
      .withResponse();
    expect(answer.data).toHaveLength(1);
    expect(imageRequests().at(-1)!.path).toBe('/v1/images/variations');
    const log = await billed(response.headers.get('x-oneapi-request-id')!, before);
    expect(log.quota).toBe(4_000); // 0.02 x size 0.4 x 500,000
  });

  it("reaches Azure's deployment paths, generations and edits", async () => {
    const before = await balance();
    const generated = await client.images.generate({ model: 'gpt-image-1-mini', prompt: 'a red kite', quality: 'medium', size: '1024x1536' }).withResponse();
    expect(generated.data.usage?.output_tokens).toBe(1_584);
    let received = imageRequests().at(-1)!;
    expect(received.url).toBe('/openai/deployments/gpt-image-1-mini/images/generations?api-version=2025-04-01-preview');
    expect(received.headers['api-key']).toBe('azure-key');
    let log = await billed(generated.response.headers.get('x-oneapi-request-id')!, before);
    expect(log.quota).toBe(Math.ceil('a red kite'.length / 4) + 1_584 * 4); // ratio 1, completion ratio 4
    expect(log.other.admin_info).toEqual({ use_channel: [azureChannel] });

    const next = await balance();
    const edited = await client.images
      .edit({ model: 'gpt-image-1-mini', image: await toFile(upload, 'a.png', { type: 'image/png' }), prompt: 'make it blue', quality: 'low' })
      .withResponse();
    received = imageRequests().at(-1)!;
    expect(received.url).toBe('/openai/deployments/gpt-image-1-mini/images/edits?api-version=2025-04-01-preview');
    expect(received.body).toMatchObject({ model: 'gpt-image-1-mini', prompt: 'make it blue', quality: 'low' });
    log = await billed(edited.response.headers.get('x-oneapi-request-id')!, next);
    expect(log.quota).toBe(Math.ceil('make it blue'.length / 4) + 100 + 272 * 4);
  });

  it('never sends anything to the channel that serves no image API, though it ranks first', () => {
    expect(imageRequests().length).toBeGreaterThan(0);
    // Anthropic's provider sends its key as x-api-key; the others as Bearer or api-key.
    const keys = world.mock.requests.map((entry) => entry.headers['x-api-key'] ?? entry.headers['api-key'] ?? entry.headers.authorization);
    expect(keys).not.toContain('anthropic-key');
    expect(new Set(keys)).toEqual(new Set(['Bearer mock-key', 'azure-key']));
  });

  it('answers 503 naming images and the model when only such a channel carries it', async () => {
    const received = world.mock.stats.received;
    const answer = await send('generations', JSON.stringify({ model: 'claude-only-image', prompt: 'x' }));
    expect(answer.status).toBe(503);
    expect(answer.body.error.message).toContain('no channel can serve image generations for model claude-only-image');
    expect(world.mock.stats.received).toBe(received);
  });

  it.each<[string, string, () => string | FormData, boolean]>([
    ['prompt', 'generations', () => JSON.stringify({ model: 'dall-e-3' }), true],
    ['response_format', 'generations', () => JSON.stringify({ model: 'dall-e-3', prompt: 'x', response_format: 'gif' }), true],
    ['n', 'generations', () => JSON.stringify({ model: 'dall-e-3', prompt: 'x', n: 11 }), true],
    ['image', 'edits', () => form({ model: 'dall-e-2', prompt: 'x' }), false],
    ['prompt', 'edits', () => form({ model: 'dall-e-2', image: new Blob([upload], { type: 'image/png' }) }), false],
    ['n', 'edits', () => form({ model: 'dall-e-2', prompt: 'x', n: '11', image: new Blob([upload], { type: 'image/png' }) }), false],
    ['n', 'edits', () => form({ model: 'dall-e-2', prompt: 'x', n: 'many', image: new Blob([upload], { type: 'image/png' }) }), false],
    ['response_format', 'edits', () => form({ model: 'dall-e-2', prompt: 'x', response_format: 'gif', image: new Blob([upload]) }), false],
    ['image', 'variations', () => form({ model: 'dall-e-2', n: '1' }), false],
    ['image', 'variations', () => form({ model: 'dall-e-2', image: 'not a file' }), false],
  ])('answers 400 naming %s (%s) before anything is forwarded', async (param, path, body, json) => {
    const received = world.mock.stats.received;
    const answer = await send(path, body(), json);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ param, type: 'invalid_request_error' });
    expect(world.mock.stats.received).toBe(received);
  });

  it('has a mock that refuses an edit without an image file, as OpenAI does', async () => {
    for (const path of ['/v1/images/edits', '/v1/images/variations', '/openai/deployments/gpt-image-1/images/edits']) {
      const response = await fetch(`${world.mock.url}${path}`, { method: 'POST', body: form({ model: 'gpt-image-1', prompt: 'x', image: 'text' }) });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('image');
    }
    const named = await fetch(`${world.mock.url}/v1/images/edits`, { method: 'POST', body: form({ prompt: 'x', 'image[]': new Blob([upload]) }) });
    expect(named.status).toBe(200);
  });

  it('answers 413 to an upload over RELAY_UPLOAD_LIMIT_BYTES', async () => {
    const received = world.mock.stats.received;
    const answer = await send('edits', form({ model: 'dall-e-2', prompt: 'x', image: new Blob([Buffer.alloc(UPLOAD_LIMIT + 1)]) }), false);
    expect(answer.status).toBe(413);
    expect(world.mock.stats.received).toBe(received);
  });
});
