import OpenAI from 'openai';
import type { DataSource } from 'typeorm';
import type { EventPayload } from '@aigw/contracts';
import { waitFor } from '@aigw/platform/testing';
import { openBillingDatabase } from '../../billing/test/support/billing-db';
import { LogEntity } from '../../billing/src/entities/index';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

/**
 * The whole answer's deadline in this world (UPSTREAM_ANSWER_TIMEOUT_MS): the quick tasks here are
 * done in two polls (250 + 500 ms after the submit, polled-answer.ts and providers/ali/image.ts),
 * the stuck one is cut by it.
 */
const ANSWER_TIMEOUT_MS = 3_000;
/** USD per image (ModelPrice); 1024x1024 has size ratio 1, so a charge is 0.02 x n x QuotaPerUnit 500,000. */
const PRICE = 0.02;
const quotaFor = (images: number) => PRICE * images * 500_000;
const SUBMIT = '/api/v1/services/aigc/text2image/image-synthesis';

/**
 * OpenAI's image generations on an Alibaba DashScope channel (17), whose text-to-image models run
 * as async tasks, against the mock's DashScope task routes with the official `openai` client: the
 * relay submits the task, polls it within the request, answers the images' URLs, and charges once
 * per image; a failed task is the channel's failure and charges nothing; a task slower than the
 * answer deadline is a 504.
 */
describe.each(backends)('DashScope image generations (%s)', (backend) => {
  let world: RelayWorld;
  let client: OpenAI;
  let billing: DataSource;
  let channelId: number;
  const failures: Array<EventPayload<'relay.channel.failed'>> = [];

  beforeAll(async () => {
    world = await startRelayWorld(backend, { env: { UPSTREAM_ANSWER_TIMEOUT_MS: String(ANSWER_TIMEOUT_MS) } });
    // Each client model is the mock's wanx with a task lifecycle (tools/mock-upstream/README.md, "Ali DashScope").
    channelId = await world.addChannel({
      name: 'dashscope',
      type: 17,
      models: 'wanx-quick,wanx-failing,wanx-stuck',
      model_mapping: JSON.stringify({ 'wanx-quick': 'wanx-v1@tasksteps=1', 'wanx-failing': 'wanx-v1@taskfail=1', 'wanx-stuck': 'wanx-v1@taskstuck' }),
    });
    await world.setOption('ModelPrice', JSON.stringify({ 'wanx-quick': PRICE, 'wanx-failing': PRICE, 'wanx-stuck': PRICE }));
    await waitFor(
      async () => (await world.gateway.call('GET', '/internal/relay/options', { session: world.root })).json().data?.ModelPrice?.['wanx-stuck'] === PRICE,
      10_000,
      'image prices',
    );
    await Promise.all(['wanx-quick', 'wanx-failing', 'wanx-stuck'].map((model) => world.waitForModel(model)));
    billing = await openBillingDatabase(world.gateway.env);
    await world.gateway.env.infra.bus.subscribe(
      'relay.channel.failed',
      async (event) => void failures.push(event.data as EventPayload<'relay.channel.failed'>),
      {},
    );
    client = new OpenAI({ baseURL: `${world.baseUrl}/v1`, apiKey: world.apiKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await billing?.destroy();
    await world?.close();
  });

  const received = () => world.mock.requests.filter((entry) => entry.path === SUBMIT || entry.path.startsWith('/api/v1/tasks/'));
  /** The request's one usage record, once billing applied it to the balance. */
  const billedOnce = async (requestId: string, before: number) => {
    const log = await world.usageLog(requestId);
    await waitFor(async () => (await world.balance()) === before - log.quota, 10_000, 'balance applied');
    expect(await billing.getRepository(LogEntity).countBy({ request_id: requestId })).toBe(1);
    return log;
  };
  /** The API error a generation fails with (the test fails when it succeeds), and its request id. */
  const failureOf = async (model: string, extra: Partial<OpenAI.ImageGenerateParams> = {}) => {
    const outcome = await client.images.generate({ model, prompt: 'a lighthouse', size: '1024x1024', ...extra }).then(
      () => null,
      (error: unknown) => error,
    );
    if (!(outcome instanceof OpenAI.APIError)) throw new Error(`expected an API error, got ${String(outcome)}`);
    return { failure: outcome, requestId: outcome.headers?.get('x-oneapi-request-id') ?? '' };
  };

  it('submits the task with the async header, polls it until it succeeds, answers the URLs and charges once per image', async () => {
    world.mock.reset();
    const before = await world.balance();
    const { data: answer, response } = await client.images
      .generate({ model: 'wanx-quick', prompt: 'a flower shop with fine windows', size: '1024x1024', n: 2 })
      .withResponse();

    const [submit, ...polls] = received();
    expect(submit).toMatchObject({ method: 'POST', path: SUBMIT });
    expect(submit!.headers).toMatchObject({ 'x-dashscope-async': 'enable', authorization: 'Bearer mock-key' });
    expect(submit!.body).toEqual({
      model: 'wanx-v1@tasksteps=1',
      input: { prompt: 'a flower shop with fine windows' },
      parameters: { n: 2, size: '1024*1024' },
    });
    // RUNNING once, then SUCCEEDED: two polls of the one task, each with the key.
    expect(polls).toHaveLength(2);
    const taskId = polls[0]!.path.slice('/api/v1/tasks/'.length);
    for (const poll of polls) expect(poll).toMatchObject({ method: 'GET', path: `/api/v1/tasks/${taskId}`, headers: { authorization: 'Bearer mock-key' } });

    expect(answer.data).toEqual([{ url: `${world.mock.url}/ali/images/${taskId}-1.png` }, { url: `${world.mock.url}/ali/images/${taskId}-2.png` }]);
    const image = await fetch(answer.data![0]!.url!);
    expect(image.headers.get('content-type')).toBe('image/png');
    await image.arrayBuffer();

    const requestId = response.headers.get('x-oneapi-request-id')!;
    const log = await billedOnce(requestId, before);
    expect(log.quota).toBe(quotaFor(2));
    expect(JSON.parse(log.other)).toMatchObject({
      model_price: PRICE,
      image: true,
      image_count: 2,
      image_size_ratio: 1,
      admin_info: { use_channel: [channelId] },
    });
    // The submit and the polls all succeeded: nothing is reported against the channel.
    expect(failures.filter((failure) => failure.request_id === requestId)).toEqual([]);
  });

  it('asks DashScope for one image when the client gave no n (its own default is 4), and charges one', async () => {
    world.mock.reset();
    const before = await world.balance();
    const { data: answer, response } = await client.images.generate({ model: 'wanx-quick', prompt: 'a small cat' }).withResponse();
    expect(received()[0]!.body).toEqual({ model: 'wanx-v1@tasksteps=1', input: { prompt: 'a small cat' }, parameters: { n: 1 } });
    expect(answer.data).toHaveLength(1);
    expect((await billedOnce(response.headers.get('x-oneapi-request-id')!, before)).quota).toBe(quotaFor(1));
  });

  it("answers a failed task as the channel's failure with DashScope's reason, charging nothing", async () => {
    world.mock.reset();
    const before = await world.balance();
    const { failure, requestId } = await failureOf('wanx-failing');
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(failure).toMatchObject({
      status: 400,
      error: { message: expect.stringContaining('mock upstream: the task failed at poll 1 (taskfail)'), code: 'DataInspectionFailed' },
    });
    // The submit and the one poll that found it failed; 400 is not retried.
    expect(received().map((entry) => entry.method)).toEqual(['POST', 'GET']);

    const log = await billedOnce(requestId, before);
    expect(log).toMatchObject({ quota: 0 });
    expect(log.content).toContain('upstream error');
    expect(await world.balance()).toBe(before);
    // Reported once against the channel, with the status the task's code stands for (auto-ban reads it).
    await waitFor(async () => failures.some((reported) => reported.request_id === requestId), 10_000, 'channel failure reported');
    expect(failures.filter((reported) => reported.request_id === requestId)).toEqual([
      expect.objectContaining({ channel_id: channelId, status_code: 400, error_code: 'DataInspectionFailed', error_type: 'invalid_request_error' }),
    ]);
  });

  it('answers 504 when the task is not done within the answer deadline, charging nothing', async () => {
    world.mock.reset();
    const before = await world.balance();
    const startedAt = Date.now();
    const { failure, requestId } = await failureOf('wanx-stuck');
    expect(failure).toMatchObject({ status: 504, error: { code: 'upstream_timeout' } });
    // Polled until the next poll could only come after the deadline, never past it.
    expect(Date.now() - startedAt).toBeLessThan(ANSWER_TIMEOUT_MS + 2_000);
    expect(received().filter((entry) => entry.method === 'GET').length).toBeGreaterThanOrEqual(3);

    const log = await billedOnce(requestId, before);
    expect(log).toMatchObject({ quota: 0 });
    expect(await world.balance()).toBe(before);
  });

  it('refuses b64_json naming response_format before any task is submitted: DashScope answers URLs only', async () => {
    world.mock.reset();
    const { failure, requestId } = await failureOf('wanx-quick', { response_format: 'b64_json' });
    expect(failure).toMatchObject({ status: 400, param: 'response_format' });
    expect(received()).toHaveLength(0);
    expect(await world.usageLog(requestId)).toMatchObject({ quota: 0 });
  });
});
