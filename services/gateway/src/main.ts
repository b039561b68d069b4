import './tracing.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyHeapGrowth, createInfrastructure, createLogger, loadConfig, startMetricsServer } from '@aigw/platform';
import { buildGateway } from './app.js';
import { gatewayConfigSchema, isDistributed } from './config.js';
import { stopTracing } from '@aigw/platform/tracing';

const config = loadConfig(gatewayConfigSchema);
applyHeapGrowth(config.HEAP_GROWING_PERCENT);
const logger = createLogger({ level: config.LOG_LEVEL, service: 'gateway' });
const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const infra = await createInfrastructure(config, logger);
const app = await buildGateway({
  config,
  logger,
  infra,
  version: '0.1.0',
  webDistDir: config.WEB_DIST_DIR ?? path.join(repositoryRoot, 'web', 'dist'),
});
await app.listen({ host: config.HOST, port: config.PORT });
// Prometheus on a port of its own, never the public one (docs/architecture.md section 11).
const metrics = config.METRICS_PORT === undefined ? undefined : await startMetricsServer({ host: config.HOST, port: config.METRICS_PORT, logger });
logger.info({ topology: isDistributed(config) ? 'distributed' : 'all-in-one', port: config.PORT }, 'gateway listening');

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'draining');
  setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE_MS).unref();
  // Plugins' onClose hooks still use the ports: close them after the app.
  await app.close();
  await metrics?.close();
  await infra.close();
  await stopTracing();
  process.exit(0);
};
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
