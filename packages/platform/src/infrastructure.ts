import type { Bus } from './bus/bus.js';
import { createBus } from './bus/index.js';
import type { Counters, Kv } from './counters/counters.js';
import { createStores } from './counters/index.js';
import type { Jobs } from './jobs/jobs.js';
import { createJobs } from './jobs/index.js';
import type { Logger } from './logger.js';

/**
 * The ports a process shares between its service plugins. The adapters are chosen by which URL is
 * set (docs/architecture.md section 4): NATS for the bus, Redis for jobs, counters and kv;
 * in-process otherwise. The all-in-one process makes one and hands it to every plugin, so the
 * in-process bus connects them.
 */
export interface Infrastructure {
  bus: Bus;
  jobs: Jobs;
  counters: Counters;
  kv: Kv;
  logger: Logger;
  close(): Promise<void>;
}

export interface InfrastructureConfig {
  NATS_URL?: string;
  NATS_STREAM_REPLICAS?: number;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  REDIS_URL?: string;
  NAMESPACE: string;
}

export async function createInfrastructure(config: InfrastructureConfig, logger: Logger): Promise<Infrastructure> {
  const namespace = config.NAMESPACE;
  const bus = await createBus({
    natsUrl: config.NATS_URL,
    namespace,
    streamReplicas: config.NATS_STREAM_REPLICAS,
    natsUser: config.NATS_USER,
    natsPassword: config.NATS_PASSWORD,
    logger,
  });
  const jobs = await createJobs({ redisUrl: config.REDIS_URL, prefix: namespace ? `aigw-${namespace}` : 'aigw', logger });
  const stores = createStores({ redisUrl: config.REDIS_URL, prefix: namespace ? `aigw:${namespace}` : 'aigw', logger });
  logger.info(
    {
      bus: config.NATS_URL ? 'nats' : 'in-process',
      natsUser: config.NATS_URL ? config.NATS_USER : undefined,
      stores: config.REDIS_URL ? 'redis' : 'in-memory',
    },
    'infrastructure ready',
  );
  return {
    bus,
    jobs,
    counters: stores.counters,
    kv: stores.kv,
    logger,
    async close() {
      await jobs.close();
      await bus.close();
      await stores.close();
    },
  };
}
