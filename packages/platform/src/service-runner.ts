import type { FastifyPluginAsync, FastifyPluginOptions } from 'fastify';
import { z } from 'zod';
import { msg } from '@aigw/contracts';
import { createApp, type App } from './app.js';
import { announcesBody } from './body-limits.js';
import { NotFoundError } from './errors.js';
import { baseConfigShape, checkNatsCredentials, loadConfig } from './config.js';
import { createInfrastructure, type Infrastructure } from './infrastructure.js';
import { reportSchedules } from './jobs/schedules-report.js';
import { applyHeapGrowth } from './heap.js';
import { createLogger } from './logger.js';
import { stopTracing } from './tracing/tracing.js';
import { registerHttpMetrics } from './metrics/http.js';
import { startMetricsServer } from './metrics/server.js';
import { serveServiceOpenApi } from './openapi/openapi.js';

/** Config every standalone service process reads: the base fields plus its port. */
export function serviceConfigSchema<T extends z.ZodRawShape>(defaultPort: number, extra: T) {
  return z
    .object({
      ...baseConfigShape,
      /** Port of this service process. */
      PORT: z.coerce.number().int().min(0).max(65535).default(defaultPort),
      INTERNAL_SECRET: baseConfigShape.INTERNAL_SECRET.unwrap(),
      ...extra,
    })
    .superRefine(checkNatsCredentials);
}

/** The fields runService reads. */
export interface ServiceConfig {
  LOG_LEVEL: string;
  HOST: string;
  PORT: number;
  NATS_URL?: string;
  NATS_STREAM_REPLICAS?: number;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  REDIS_URL?: string;
  NAMESPACE: string;
  INTERNAL_SECRET: string;
  BODY_LIMIT_BYTES: number;
  SHUTDOWN_GRACE_MS: number;
  TRUST_PROXY: boolean;
  METRICS_PORT?: number;
  /** Absent (a config built by hand, as tests do): V8's own factor. */
  HEAP_GROWING_PERCENT?: number;
}

export interface RunServiceOptions<C extends ServiceConfig, P extends FastifyPluginOptions> {
  name: string;
  config: C;
  plugin: FastifyPluginAsync<P>;
  pluginOptions: (infra: Infrastructure) => P;
}

/** A standalone service as startService leaves it: listening, its metrics too when METRICS_PORT is set. */
export interface RunningService {
  app: App;
  infra: Infrastructure;
  /** The metrics listener's port (the one chosen for METRICS_PORT=0); undefined without METRICS_PORT. */
  metricsPort?: number;
  /** Drains: /readyz answers 503, job workers stop, the app closes (plugins' onClose hooks included), then the metrics listener and the ports. */
  close(): Promise<void>;
}

/**
 * A standalone service, started: logger, ports, the app with signed identities and HTTP metrics,
 * the plugin, health routes, its part of the OpenAPI document, listen, and the metrics listener
 * (METRICS_PORT). runService adds the signals; tests start one directly.
 */
export async function startService<C extends ServiceConfig, P extends FastifyPluginOptions>(options: RunServiceOptions<C, P>): Promise<RunningService> {
  const { config, name } = options;
  const logger = createLogger({ level: config.LOG_LEVEL, service: name });
  const infra = await createInfrastructure(config, logger);
  const app = createApp({ logger, bodyLimitBytes: config.BODY_LIMIT_BYTES, internalSecret: config.INTERNAL_SECRET, trustProxy: config.TRUST_PROXY });
  registerHttpMetrics(app);
  // An unknown path is answered as it arrives, in the path's shape: its body is never read.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    if (announcesBody(request.headers)) reply.header('connection', 'close');
    throw new NotFoundError(msg('platform.invalid_url', { method: request.method, path: request.url.split('?', 1)[0]! }));
  });
  let draining = false;
  app.get('/healthz', { config: { access: 'public' } }, async () => ({ status: 'ok', service: name }));
  // Schedules are reported, not a readiness condition: see the gateway's /readyz.
  app.get('/readyz', { config: { access: 'public' } }, async (_request, reply) =>
    draining ? reply.status(503).send({ status: 'draining', service: name }) : { status: 'ready', service: name, schedules: await reportSchedules(infra.jobs) },
  );
  // Job handlers use the plugin's database and pools, which its onClose hooks close.
  app.addHook('preClose', () => infra.jobs.stopWorking());
  serveServiceOpenApi(app, name);
  await app.register(options.plugin, options.pluginOptions(infra));
  await app.listen({ host: config.HOST, port: config.PORT });
  const metrics = config.METRICS_PORT === undefined ? undefined : await startMetricsServer({ host: config.HOST, port: config.METRICS_PORT, logger });

  return {
    app,
    infra,
    ...(metrics ? { metricsPort: metrics.port } : {}),
    async close() {
      draining = true;
      // Plugins' onClose hooks still use the ports (unsubscribe, last publishes): close them after.
      await app.close();
      await metrics?.close();
      await infra.close();
    },
  };
}

/**
 * The standalone entry every service's main.ts calls: startService, and a graceful drain on
 * SIGTERM/SIGINT.
 */
export async function runService<C extends ServiceConfig, P extends FastifyPluginOptions>(options: RunServiceOptions<C, P>): Promise<void> {
  applyHeapGrowth(options.config.HEAP_GROWING_PERCENT ?? 0);
  const service = await startService(options);
  const { logger } = service.infra;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const deadline = setTimeout(() => {
      logger.warn('drain deadline reached, exiting');
      process.exit(1);
    }, options.config.SHUTDOWN_GRACE_MS).unref();
    await service.close();
    // The last spans (the drain's own) are exported before the process goes.
    await stopTracing();
    clearTimeout(deadline);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

export { loadConfig };
