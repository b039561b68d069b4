import type { FastifyPluginAsync, FastifyPluginOptions } from 'fastify';
import { z } from 'zod';
import { createApp } from './app.js';
import { announcesBody } from './body-limits.js';
import { NotFoundError } from './errors.js';
import { baseConfigShape, checkNatsCredentials, loadConfig } from './config.js';
import { createInfrastructure, type Infrastructure } from './infrastructure.js';
import { reportSchedules } from './jobs/schedules-report.js';
import { createLogger } from './logger.js';

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
}

export interface RunServiceOptions<C extends ServiceConfig, P extends FastifyPluginOptions> {
  name: string;
  config: C;
  plugin: FastifyPluginAsync<P>;
  pluginOptions: (infra: Infrastructure) => P;
}

/**
 * The standalone entry every service's main.ts calls: logger, ports, the app with signed
 * identities, the plugin, health routes, listen, and a graceful drain on SIGTERM/SIGINT.
 */
export async function runService<C extends ServiceConfig, P extends FastifyPluginOptions>(options: RunServiceOptions<C, P>): Promise<void> {
  const { config, name } = options;
  const logger = createLogger({ level: config.LOG_LEVEL, service: name });
  const infra = await createInfrastructure(config, logger);
  const app = createApp({ logger, bodyLimitBytes: config.BODY_LIMIT_BYTES, internalSecret: config.INTERNAL_SECRET, trustProxy: config.TRUST_PROXY });
  // An unknown path is answered as it arrives, in the path's shape: its body is never read.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    if (announcesBody(request.headers)) reply.header('connection', 'close');
    throw new NotFoundError(`Invalid URL (${request.method} ${request.url.split('?', 1)[0]})`);
  });
  let draining = false;
  app.get('/healthz', { config: { access: 'public' } }, async () => ({ status: 'ok', service: name }));
  // Schedules are reported, not a readiness condition: see the gateway's /readyz.
  app.get('/readyz', { config: { access: 'public' } }, async (_request, reply) =>
    draining ? reply.status(503).send({ status: 'draining', service: name }) : { status: 'ready', service: name, schedules: await reportSchedules(infra.jobs) },
  );
  await app.register(options.plugin, options.pluginOptions(infra));
  await app.listen({ host: config.HOST, port: config.PORT });

  const shutdown = async (signal: string) => {
    if (draining) return;
    draining = true;
    logger.info({ signal }, 'draining');
    const deadline = setTimeout(() => {
      logger.warn('drain deadline reached, exiting');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS).unref();
    // Plugins' onClose hooks still use the ports (unsubscribe, last publishes): close them after.
    await app.close();
    await infra.close();
    clearTimeout(deadline);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

export { loadConfig };
