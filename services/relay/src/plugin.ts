import type { FastifyPluginAsync } from 'fastify';
import { JobName } from '@aigw/contracts';
import {
  createEgressClient, createOptionsMirror, createQuotaGate, recordedJob, registerDiagnostics, useAccessControl, type Infrastructure, type Subscription,
} from '@aigw/platform';
import { createChannelDirectory } from './channels.js';
import { preloadEncoders } from './tokenizer/index.js';
import { registerChannelOperations } from './channel-operations.js';
import type { RelayContext, RelayLimits } from './context.js';
import { relayErrorHandler } from './errors.js';
import { createTokenCache } from './token-cache.js';
import { createUsagePublisher } from './usage-publisher.js';
import { modelRoutes } from './routes/models.js';
import { openAiRoutes } from './routes/openai.js';
import { anthropicRoutes } from './routes/anthropic.js';
import { playgroundRoutes } from './routes/playground.js';
import { taskRoutes } from './routes/tasks.js';

export interface RelayPluginOptions {
  infra: Infrastructure;
  limits?: Partial<RelayLimits & { connectTimeoutMs: number; headersTimeoutMs: number; holdTtlMs: number }>;
  /** Build the tokenizers at start (about 1.7 s and 110 MB) instead of on the first request. */
  preloadTokenizers?: boolean;
}

const HOLD_SWEEP_EVERY_MS = 60_000;

/** Relay: the OpenAI-compatible data plane. Warm requests touch no SQL and call no other service. */
const relayPlugin: FastifyPluginAsync<RelayPluginOptions> = async (app, { infra, limits = {}, preloadTokenizers = false }) => {
  useAccessControl(app, 'relay');
  if (preloadTokenizers) preloadEncoders();
  app.setErrorHandler(relayErrorHandler);
  const { bus, counters, kv, logger } = infra;
  const options = await createOptionsMirror({ bus, logger });
  const streamIdleTimeoutMs = limits.streamIdleTimeoutMs ?? 60_000;
  const context: RelayContext = {
    bus,
    logger,
    options,
    tokens: await createTokenCache({ bus, logger }),
    channels: await createChannelDirectory({ bus, logger }),
    egress: createEgressClient({
      allowPrivateNetwork: () => options.get('AllowPrivateNetworkUpstreams'),
      connectTimeoutMs: limits.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: limits.headersTimeoutMs ?? 300_000,
      // The stream's own idle guard answers the client; this one only frees a dead socket.
      bodyTimeoutMs: streamIdleTimeoutMs * 2,
      keepAliveTimeoutMs: 60_000,
    }),
    // Far beyond any request (streams end after a minute of silence): only a dead relay's holds get that old.
    quota: createQuotaGate({ counters, kv, bus, logger, holdTtlMs: limits.holdTtlMs ?? 2 * 3600_000 }),
    usage: createUsagePublisher({ bus, logger }),
    limits: { streamIdleTimeoutMs, maxUpstreamBodyBytes: limits.maxUpstreamBodyBytes ?? 64 * 1024 * 1024 },
  };
  const subscriptions: Subscription[] = [await registerChannelOperations(context)];

  // Holds whose relay died mid-request are released (DESIGN section 5: nothing leaks).
  await infra.jobs.work(JobName.RelayHoldsSweep, recordedJob(JobName.RelayHoldsSweep, async () => {
    const released = await context.quota.sweep();
    let published = 0;
    for (const { hold } of released) {
      if (!hold.record) continue;
      context.usage.publish(hold.record);
      published += 1;
    }
    return `released ${released.length} stale hold${released.length === 1 ? '' : 's'}, ${published} usage record${published === 1 ? '' : 's'} published`;
  }, { kv, logger }));
  await infra.jobs.repeat(JobName.RelayHoldsSweep, {}, { everyMs: HOLD_SWEEP_EVERY_MS });

  app.addHook('onClose', async () => {
    await context.usage.flush(10_000);
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    await Promise.all([context.tokens.close(), context.channels.close(), options.close()]);
    await context.egress.close();
  });

  registerDiagnostics(app, 'relay', options);
  for (const routes of [openAiRoutes, anthropicRoutes, modelRoutes, playgroundRoutes]) await app.register(routes, { context });
  await app.register(taskRoutes);
};

export default relayPlugin;
