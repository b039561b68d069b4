import { z } from 'zod';
import { loadConfig, runService, serviceConfigSchema } from '@aigw/platform';
import relayPlugin from './plugin.js';

const config = loadConfig(serviceConfigSchema(3004, {
  /** Silence allowed between two streamed chunks before a stream is ended with an error event. */
  STREAMING_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Connecting to an upstream (DNS, TCP, TLS). */
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Waiting for an upstream's response headers (long non-streaming answers need minutes). */
  UPSTREAM_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
}));
await runService({
  name: 'relay',
  config,
  plugin: relayPlugin,
  pluginOptions: (infra) => ({
    infra,
    preloadTokenizers: true,
    limits: {
      streamIdleTimeoutMs: config.STREAMING_TIMEOUT_MS,
      connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: config.UPSTREAM_HEADERS_TIMEOUT_MS,
    },
  }),
});
