import fs from 'node:fs';
import path from 'node:path';
import { collectProcessMetrics, createSilentLogger, metricsRegistry, OTHER, startMetricsServer, type MetricsServer } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { scrape, seriesOf, valueOf, type Sample } from '../../../packages/platform/test/metrics-scrape';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(120_000);

/**
 * The relay's metrics as Prometheus scrapes them, all-in-one (the gateway process runs every
 * service, so the billing, bus, jobs and channels series are in the same registry). The registry
 * is the process's: each check reads the change a step made.
 */
describe.each(backends)('relay metrics (%s)', (backend) => {
  let world: RelayWorld;
  let metrics: MetricsServer;
  let channel: number;

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, logger: createSilentLogger() });
    await world.setOption('RetryTimes', 0);
    await world.setOption('AutomaticDisableChannelEnabled', true);
    channel = await world.addChannel({ name: 'main', models: 'mock-gpt' });
    await world.waitForModel('mock-gpt');
  });
  afterAll(async () => {
    await metrics?.close();
    await world?.close();
  });

  const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Tell the metrics something.' }], ...body }),
    });
  const requestIdOf = (response: Response) => response.headers.get('x-oneapi-request-id')!;
  const changeSince = (before: Sample[], after: Sample[]) => (name: string, labels: Record<string, string>) =>
    valueOf(after, name, labels) - valueOf(before, name, labels);

  it('counts a chat, a stream and failed upstream calls by model, channel and outcome, with the tokens and quota of the usage log', async () => {
    const failing = await world.addChannel({
      name: 'revoked',
      models: 'mock-revoked',
      model_mapping: JSON.stringify({ 'mock-revoked': 'mock-gpt@status=401' }),
    });
    const refusing = await world.addChannel({ name: 'strict', models: 'mock-strict', model_mapping: JSON.stringify({ 'mock-strict': 'mock-gpt@status=400' }) });
    await world.waitForModel('mock-revoked');
    await world.waitForModel('mock-strict');
    const before = await scrape(metrics.port);

    const answered = await chat({ model: 'mock-gpt' });
    expect(answered.status).toBe(200);
    await answered.json();
    const streamed = await chat({ model: 'mock-gpt', stream: true, stream_options: { include_usage: true } });
    expect(streamed.status).toBe(200);
    await streamed.text();
    const revoked = await chat({ model: 'mock-revoked' });
    expect(revoked.status).toBe(401);
    const invalid = await chat({ model: 'mock-strict' });
    expect(invalid.status).toBe(400);
    // One after the other: the first call opens the billing database the world closes.
    const logs = [];
    for (const response of [answered, streamed, revoked, invalid]) logs.push(await world.usageLog(requestIdOf(response)));
    const [chatLog, streamLog] = logs;

    // Billing applied the four records; the channel the 401 came from was disabled.
    await waitFor(
      async () => {
        const now = await scrape(metrics.port);
        return (
          changeSince(before, now)('aigw_billing_usage_events_total', { event: 'recorded', outcome: 'applied' }) === 4 &&
          changeSince(before, now)('aigw_channels_auto_disabled_total', { channel: String(failing), scope: 'channel' }) === 1
        );
      },
      10_000,
      'usage applied, channel disabled',
    );
    const after = await scrape(metrics.port);
    const change = changeSince(before, after);
    const served = { model: 'mock-gpt', group: 'default', channel: String(channel), operation: 'chat' };
    expect(change('aigw_relay_requests_total', { ...served, outcome: 'ok' })).toBe(2);
    expect(change('aigw_relay_requests_total', { model: 'mock-revoked', channel: String(failing), outcome: 'upstream_error' })).toBe(1);
    expect(change('aigw_relay_requests_total', { model: 'mock-strict', channel: String(refusing), outcome: 'client_error' })).toBe(1);
    expect(change('aigw_relay_requests_total', {})).toBe(4);
    expect(change('aigw_relay_tokens_total', { model: 'mock-gpt', group: 'default', kind: 'prompt' })).toBe(chatLog!.prompt_tokens + streamLog!.prompt_tokens);
    expect(change('aigw_relay_tokens_total', { model: 'mock-gpt', group: 'default', kind: 'completion' })).toBe(
      chatLog!.completion_tokens + streamLog!.completion_tokens,
    );
    expect(change('aigw_relay_quota_total', {})).toBe(logs.reduce((sum, log) => sum + log.quota, 0));
    expect(change('aigw_relay_quota_total', { model: 'mock-gpt', group: 'default' })).toBe(chatLog!.quota + streamLog!.quota);
    expect(change('aigw_relay_request_duration_seconds_count', { model: 'mock-gpt', operation: 'chat', outcome: 'ok' })).toBe(2);
    // Time to first token: streams only.
    expect(change('aigw_relay_time_to_first_token_seconds_count', { model: 'mock-gpt', operation: 'chat' })).toBe(1);
    expect(change('aigw_relay_upstream_duration_seconds_count', { channel: String(channel), result: 'ok' })).toBe(2);
    expect(change('aigw_relay_upstream_duration_seconds_count', { channel: String(failing), result: 'error' })).toBe(1);
    expect(change('aigw_relay_channel_failures_total', { channel: String(failing), status: '4xx' })).toBe(1);
    expect(change('aigw_relay_channel_failures_total', { channel: String(refusing), status: '4xx' })).toBe(1);
    expect(change('aigw_relay_retries_total', {})).toBe(0);
    // The bus carried the four records and the two failure reports; billing committed each record once, each event's age measured.
    expect(change('aigw_bus_published_total', { subject: 'relay.usage.recorded' })).toBe(4);
    expect(change('aigw_bus_published_total', { subject: 'relay.channel.failed' })).toBe(2);
    expect(change('aigw_billing_usage_batch_events_sum', {})).toBe(4);
    expect(change('aigw_billing_usage_commit_seconds_count', {})).toBeGreaterThanOrEqual(1);
    expect(change('aigw_billing_usage_lag_seconds_count', { event: 'recorded' })).toBe(4);
    // Every route by its pattern.
    expect(change('aigw_http_requests_total', { route: '/v1/chat/completions', method: 'POST', status: '2xx' })).toBe(2);
    expect(change('aigw_http_requests_total', { route: '/v1/chat/completions', method: 'POST', status: '4xx' })).toBe(2);
    // Nothing left in flight once the answers are over, nothing left unpublished.
    await waitFor(async () => valueOf(await scrape(metrics.port), 'aigw_relay_holds_in_flight') === 0, 5_000, 'no hold open');
    await waitFor(async () => valueOf(await scrape(metrics.port), 'aigw_relay_usage_outbox_events') === 0, 5_000, 'outbox acknowledged');
    expect(valueOf(after, 'aigw_job_runs_total', { job: 'relay.holds.sweep', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
  });

  it('shows a running stream as a hold in flight, and a client that leaves as partial', async () => {
    await world.addChannel({ name: 'slow', models: 'mock-slow', model_mapping: JSON.stringify({ 'mock-slow': 'mock-gpt@chunks=40,delay=25,nousage' }) });
    await world.waitForModel('mock-slow');
    const before = await scrape(metrics.port);
    const response = await chat({ model: 'mock-slow', stream: true });
    const reader = response.body!.getReader();
    await reader.read();
    // Forty chunks 25 ms apart: the stream runs on while this is read.
    expect(valueOf(await scrape(metrics.port), 'aigw_relay_holds_in_flight')).toBe(1);
    await reader.cancel();
    await world.usageLog(requestIdOf(response));
    await waitFor(async () => valueOf(await scrape(metrics.port), 'aigw_relay_holds_in_flight') === 0, 5_000, 'hold settled');
    const after = await scrape(metrics.port);
    expect(changeSince(before, after)('aigw_relay_requests_total', { model: 'mock-slow', outcome: 'partial' })).toBe(1);
    expect(changeSince(before, after)('aigw_relay_time_to_first_token_seconds_count', { model: 'mock-slow' })).toBe(1);
  });

  it('adds no series for 1,000 invented models, 1,000 invented paths and 1,000 unknown keys', async () => {
    const inject = (url: string, model: string, key = world.apiKey) =>
      world.gateway.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: { model, messages: [{ role: 'user', content: 'x' }] },
      });
    const flood = async (index: number) => {
      // Unpriced (400), and priced by the `mock-*` ratio but served by no channel (503): both refused before any upstream call.
      expect((await inject('/v1/chat/completions', `invented-${index}`)).statusCode).toBe(400);
      expect((await inject('/v1/chat/completions', `mock-invented-${index}`)).statusCode).toBe(503);
      expect((await inject(`/v1/invented-${index}/completions?user=${index}`, 'mock-gpt')).statusCode).toBe(404);
      expect((await inject('/v1/chat/completions', 'mock-gpt', `sk-invented${index}`)).statusCode).toBe(401);
    };
    await flood(-1);
    const before = await scrape(metrics.port);
    for (let index = 0; index < 1_000; index++) await flood(index);
    const after = await scrape(metrics.port);

    for (const prefix of ['aigw_http_', 'aigw_relay_']) expect(seriesOf(after, prefix)).toEqual(seriesOf(before, prefix));
    const change = changeSince(before, after);
    expect(change('aigw_relay_requests_total', { model: OTHER, group: 'default', channel: 'none', operation: 'chat', outcome: 'refused' })).toBe(2_000);
    expect(change('aigw_relay_refusals_total', { operation: 'chat', code: 'model_price_error' })).toBe(1_000);
    expect(change('aigw_relay_refusals_total', { operation: 'chat', code: 'no_channel' })).toBe(1_000);
    expect(change('aigw_http_requests_total', { route: '/v1/chat/completions', method: 'POST', status: '4xx' })).toBe(2_000);
    expect(after.some((sample) => Object.values(sample.labels).some((value) => value.includes('invented')))).toBe(false);
    // No series is per caller: no label of any of the process's metrics names a user, a key, an address or a request,
    // so however many distinct users call, the series stay as they are.
    const labels = new Set(after.filter((sample) => sample.name.startsWith('aigw_')).flatMap((sample) => Object.keys(sample.labels)));
    for (const perCaller of ['user', 'user_id', 'username', 'token', 'token_id', 'token_name', 'key', 'ip', 'request_id', 'email']) {
      expect([perCaller, labels.has(perCaller)]).toEqual([perCaller, false]);
    }
  });
});

describe('the Grafana dashboard (deploy/grafana/aigw.json)', () => {
  it('queries only metrics the all-in-one process serves', async () => {
    collectProcessMetrics();
    // Every family is registered once its module is loaded (this file loads the whole gateway): `# TYPE` lines name them all.
    const types = new Map([...(await metricsRegistry.metrics()).matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name!, type!]));
    const dashboard = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../deploy/grafana/aigw.json'), 'utf8')) as {
      panels: Array<{ targets?: Array<{ expr: string }> }>;
    };
    const expressions = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
    expect(expressions.length).toBeGreaterThan(30);
    const queried = new Set(expressions.flatMap((expression) => expression.match(/\b(?:aigw|process|nodejs)_[a-z0-9_]+/g) ?? []));
    const served = (name: string) => types.has(name) || types.get(name.replace(/_(bucket|sum|count)$/, '')) === 'histogram';
    expect([...queried].filter((name) => !served(name))).toEqual([]);
  });
});
