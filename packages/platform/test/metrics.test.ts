import type { AddressInfo } from 'node:net';
import type { BusEvent, DeadLetter } from '../src/bus/bus.js';
import { createSilentLogger } from '../src/logger.js';
import { cappedLabel, CounterFamily, HistogramFamily, OTHER, statusClass } from '../src/metrics/families.js';
import { metricsRegistry } from '../src/metrics/registry.js';
import { startMetricsServer } from '../src/metrics/server.js';
import { startService } from '../src/service-runner.js';
import { backends, createTestEnvironment, waitFor, type TestEnvironment } from '../src/testing/infrastructure.js';
import { parseMetrics, scrape, valueOf, type Sample } from './metrics-scrape.js';

/** The process registry now (the families register there, whoever scrapes). */
async function registryNow(): Promise<Sample[]> {
  return parseMetrics(await metricsRegistry.metrics());
}

describe('metrics listener', () => {
  it('serves GET /metrics in the Prometheus text format with the process metrics, 404 for anything else, until closed', async () => {
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0, logger: createSilentLogger() });
    const base = `http://127.0.0.1:${server.port}`;
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = parseMetrics(await response.text());
    expect(valueOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    expect(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics/x`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
    await server.close();
    await expect(fetch(`${base}/metrics`)).rejects.toThrow();
  });
});

describe('metric families', () => {
  it('keep one series per label values, at zero from their first lookup; counters never go down', async () => {
    const things = new CounterFamily({ name: 'aigw_test_things_total', help: 'Things.', labelNames: ['kind'] });
    const a = things.child('a');
    expect(things.child('a')).toBe(a);
    expect(valueOf(await registryNow(), 'aigw_test_things_total', { kind: 'a' })).toBe(0);
    a.inc();
    a.inc(2);
    a.inc(-5);
    a.inc(Number.NaN);
    things.child('b').inc();
    const samples = await registryNow();
    expect(samples.filter((sample) => sample.name === 'aigw_test_things_total')).toEqual([
      { name: 'aigw_test_things_total', labels: { kind: 'a' }, value: 3 },
      { name: 'aigw_test_things_total', labels: { kind: 'b' }, value: 1 },
    ]);
    expect(() => things.child('a', 'b')).toThrow('aigw_test_things_total takes 1 label values, got 2');
  });

  it('histograms count per bucket, with their sum and count', async () => {
    const waits = new HistogramFamily({ name: 'aigw_test_wait_seconds', help: 'Waits.', labelNames: ['queue'], buckets: [0.1, 1, 10] });
    const series = waits.child('q');
    expect(waits.child('q')).toBe(series);
    for (const value of [0.05, 0.5, 0.7, 5, 50]) series.observe(value);
    const samples = await registryNow();
    const bucket = (le: string) => valueOf(samples, 'aigw_test_wait_seconds_bucket', { queue: 'q', le });
    expect([bucket('0.1'), bucket('1'), bucket('10'), bucket('+Inf')]).toEqual([1, 3, 4, 5]);
    expect(valueOf(samples, 'aigw_test_wait_seconds_count', { queue: 'q' })).toBe(5);
    expect(valueOf(samples, 'aigw_test_wait_seconds_sum', { queue: 'q' })).toBeCloseTo(56.25);
  });

  it('a histogram series is there at zero before its first observation; a value on a bound counts in that bucket (le)', async () => {
    const sizes = new HistogramFamily({ name: 'aigw_test_sizes', help: 'Sizes.', labelNames: [], buckets: [10, 1, 100] });
    const series = sizes.child();
    const bucket = (samples: Sample[], le: string) => valueOf(samples, 'aigw_test_sizes_bucket', { le });
    const before = await registryNow();
    expect([bucket(before, '1'), bucket(before, '10'), bucket(before, '100'), bucket(before, '+Inf')]).toEqual([0, 0, 0, 0]);
    expect(valueOf(before, 'aigw_test_sizes_count', {})).toBe(0);
    for (const value of [1, 10, 10.5, 1000]) series.observe(value);
    expect(() => series.observe(Number.NaN)).toThrow(TypeError);
    const after = await registryNow();
    expect([bucket(after, '1'), bucket(after, '10'), bucket(after, '100'), bucket(after, '+Inf')]).toEqual([1, 2, 3, 4]);
    expect(after.filter((sample) => sample.name === 'aigw_test_sizes_count')).toEqual([expect.objectContaining({ value: 4 })]);
    expect(valueOf(after, 'aigw_test_sizes_sum', {})).toBeCloseTo(1021.5);
  });

  it('bounds labels: a capped label is other past its limit, a status is its class', () => {
    const label = cappedLabel(2);
    expect(['x', 'y', 'z', 'x', 'w'].map(label)).toEqual(['x', 'y', OTHER, 'x', OTHER]);
    expect([200, 204, 301, 404, 503, 0, 600, 99].map(statusClass)).toEqual(['2xx', '2xx', '3xx', '4xx', '5xx', OTHER, OTHER, OTHER]);
  });
});

describe('a standalone service (the distributed topology)', () => {
  it('counts its answers by route pattern, method and status class, and serves them on METRICS_PORT until closed', async () => {
    const service = await startService({
      name: 'probe',
      config: {
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: 0,
        METRICS_PORT: 0,
        NAMESPACE: '',
        INTERNAL_SECRET: 'i'.repeat(32),
        BODY_LIMIT_BYTES: 1024 * 1024,
        SHUTDOWN_GRACE_MS: 1000,
        TRUST_PROXY: false,
      },
      plugin: async (app) => {
        app.get('/things/:id', { config: { access: 'public' } }, async (request) => ({ id: (request.params as { id: string }).id }));
      },
      pluginOptions: () => ({}),
    });
    const metricsPort = service.metricsPort!;
    const base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    try {
      const before = await scrape(metricsPort);
      for (const id of ['1', '2', '3']) expect((await fetch(`${base}/things/${id}?q=${id}`)).status).toBe(200);
      // Paths a client invents: one series, whatever the path.
      for (let index = 0; index < 50; index++) expect((await fetch(`${base}/nowhere/${index}`)).status).toBe(404);
      const after = await scrape(metricsPort);
      const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
      expect(delta('aigw_http_requests_total', { route: '/things/:id', method: 'GET', status: '2xx' })).toBe(3);
      expect(delta('aigw_http_request_duration_seconds_count', { route: '/things/:id', method: 'GET', status: '2xx' })).toBe(3);
      expect(delta('aigw_http_requests_total', { route: 'unmatched', method: 'GET', status: '4xx' })).toBe(50);
      const routes = new Set(after.filter((sample) => sample.name === 'aigw_http_requests_total').map((sample) => sample.labels.route));
      expect([...routes].filter((route) => route?.includes('nowhere') || route?.includes('?'))).toEqual([]);
      expect(valueOf(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  });
});

describe.each(backends)('bus and jobs metrics (%s)', (backend) => {
  let environment: TestEnvironment;

  beforeAll(async () => {
    environment = await createTestEnvironment(backend);
  });
  afterAll(async () => {
    await environment?.cleanup();
  });

  it('counts publishes, redeliveries and dead letters per subject; a subject off the event map is other', async () => {
    const { bus } = environment.infra;
    const before = await registryNow();
    const delta = (after: Sample[], name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);

    const handled: BusEvent[] = [];
    await bus.subscribe('notifier.delivery.failed', async (event) => void handled.push(event), { durable: 'metrics-ok' });
    let flaky = 0;
    await bus.subscribe(
      'billing.token.updated',
      async () => {
        flaky += 1;
        if (flaky === 1) throw new Error('first delivery fails');
      },
      { durable: 'metrics-flaky', retryDelayMs: 20 },
    );
    const letters: DeadLetter[] = [];
    await bus.subscribe(
      'billing.token.deleted',
      async () => {
        throw new Error('always fails');
      },
      { durable: 'metrics-broken', maxDeliver: 2, retryDelayMs: 20, deadLetter: async (letter) => void letters.push(letter) },
    );

    for (let index = 0; index < 3; index++) await bus.publish('notifier.delivery.failed', { index });
    await bus.publish('billing.token.updated', {});
    await bus.publish('billing.token.deleted', {});
    await bus.publish('metricstest.thing.happened', {});
    await waitFor(() => handled.length === 3 && flaky === 2 && letters.length === 1, 10_000, 'deliveries');

    const after = await registryNow();
    expect(delta(after, 'aigw_bus_published_total', { subject: 'notifier.delivery.failed' })).toBe(3);
    expect(delta(after, 'aigw_bus_published_total', { subject: 'billing.token.updated' })).toBe(1);
    expect(delta(after, 'aigw_bus_published_total', { subject: OTHER })).toBe(1);
    expect(after.some((sample) => sample.labels.subject === 'metricstest.thing.happened')).toBe(false);
    expect(delta(after, 'aigw_bus_redeliveries_total', { subject: 'notifier.delivery.failed' })).toBe(0);
    expect(delta(after, 'aigw_bus_redeliveries_total', { subject: 'billing.token.updated' })).toBe(1);
    expect(delta(after, 'aigw_bus_redeliveries_total', { subject: 'billing.token.deleted' })).toBe(1);
    expect(delta(after, 'aigw_bus_dead_letters_total', { subject: 'billing.token.deleted', reason: 'last-delivery' })).toBe(1);
    expect(delta(after, 'aigw_bus_dead_letters_total', { subject: 'billing.token.updated' })).toBe(0);
  });

  it('counts job runs by outcome (ok, retry, failed) and times them, per job name', async () => {
    const { jobs } = environment.infra;
    const before = await registryNow();
    const delta = (after: Sample[], name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    const job = (name: string) => `${environment.namespace}.${name}`;

    let flakyRuns = 0;
    let brokenRuns = 0;
    await jobs.work(job('ok'), async () => undefined);
    await jobs.work(job('flaky'), async () => {
      flakyRuns += 1;
      if (flakyRuns === 1) throw new Error('first run fails');
    });
    await jobs.work(job('broken'), async () => {
      brokenRuns += 1;
      throw new Error('always fails');
    });
    await jobs.add(job('ok'), {});
    await jobs.add(job('ok'), {});
    await jobs.add(job('flaky'), {}, { attempts: 2, backoffMs: 10 });
    await jobs.add(job('broken'), {}, { attempts: 1 });

    await waitFor(
      async () => {
        const now = await registryNow();
        return (
          delta(now, 'aigw_job_runs_total', { job: job('ok') }) === 2 &&
          delta(now, 'aigw_job_runs_total', { job: job('flaky') }) === 2 &&
          delta(now, 'aigw_job_runs_total', { job: job('broken') }) === 1
        );
      },
      15_000,
      'job runs counted',
    );
    const after = await registryNow();
    expect(delta(after, 'aigw_job_runs_total', { job: job('ok'), outcome: 'ok' })).toBe(2);
    expect(delta(after, 'aigw_job_runs_total', { job: job('flaky'), outcome: 'retry' })).toBe(1);
    expect(delta(after, 'aigw_job_runs_total', { job: job('flaky'), outcome: 'ok' })).toBe(1);
    expect(delta(after, 'aigw_job_runs_total', { job: job('broken'), outcome: 'failed' })).toBe(1);
    expect(delta(after, 'aigw_job_runs_total', { job: job('broken'), outcome: 'retry' })).toBe(0);
    expect(delta(after, 'aigw_job_duration_seconds_count', { job: job('ok') })).toBe(2);
    expect(delta(after, 'aigw_job_duration_seconds_count', { job: job('flaky') })).toBe(2);
    expect([flakyRuns, brokenRuns]).toEqual([2, 1]);
  });
});
