import type { Logger } from '../logger.js';
import type { Bus } from './bus.js';
import { createMemoryBus } from './memory-bus.js';

export * from './bus.js';
export { createMemoryBus, type MemoryBusOptions } from './memory-bus.js';
export type { NatsBusOptions } from './nats-bus.js';
export * from './nats-permissions.js';
export * from './group-commit.js';

export interface BusOptions {
  /** NATS server with JetStream; without it the bus is in-process (one process, nothing survives a restart). */
  natsUrl?: string;
  /** Prefix of every subject and stream on NATS, so deployments can share a server. */
  namespace?: string;
  /** Copies of each event stream in a JetStream cluster. */
  streamReplicas?: number;
  /** The NATS user and password this process connects with; unset: no authentication. */
  natsUser?: string;
  natsPassword?: string;
  logger: Logger;
}

/**
 * The adapter follows the configuration: NATS when a URL is set, in-process otherwise. The NATS
 * client is loaded only when used: the all-in-one process never carries it.
 */
export async function createBus(options: BusOptions): Promise<Bus> {
  if (options.natsUrl) {
    const { createNatsBus } = await import('./nats-bus.js');
    return createNatsBus({
      url: options.natsUrl,
      namespace: options.namespace,
      streamReplicas: options.streamReplicas,
      user: options.natsUser,
      password: options.natsPassword,
      logger: options.logger,
    });
  }
  return createMemoryBus({ logger: options.logger });
}
