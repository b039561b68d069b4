import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { JobName } from '@aigw/contracts';
import {
  createEgressClient,
  createOptionsMirror,
  createQuotaGate,
  deadLetterRoutes,
  keepDeadLetters,
  openDatabase,
  recordedJob,
  registerDiagnostics,
  useAccessControl,
  type Infrastructure,
  type QuotaHold,
  type Subscription,
} from '@aigw/platform';
import { createChannelDirectory } from './channels.js';
import { LimitGate } from './limits/limit-gate.js';
import { relayEntities } from './entities/index.js';
import { relayMigrations } from './migrations/index.js';
import { registerChannelOperations } from './channel-operations.js';
import type { RelayContext } from './context.js';
import { DEFAULT_REQUEST_BODY_BYTES, DEFAULT_UPLOAD_BYTES, defaultInstanceName, type RelaySettings } from './config.js';
import { relayErrorHandler } from './errors.js';
import { createTokenCache } from './token-cache.js';
import { createUsagePublisher } from './usage-publisher.js';
import { countingHolds, watchOutbox } from './metrics.js';
import { UsageOutbox } from './usage-outbox.js';
import { createStoredObjects } from './stored-objects.js';
import { createAccessTokens } from './access-tokens.js';
import { modelRoutes } from './routes/models.js';
import { openAiRoutes } from './routes/openai.js';
import { anthropicRoutes } from './routes/anthropic.js';
import { uploadRoutes } from './routes/uploads.js';
import { geminiRoutes } from './routes/gemini.js';
import { storedResponseRoutes } from './routes/responses.js';
import { playgroundRoutes } from './routes/playground.js';
import { taskRoutes } from './routes/tasks.js';
import { limitRoutes } from './routes/limits.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { realtimeRoutes } from './routes/realtime.js';
import { midjourneyRoutes } from './routes/midjourney.js';
import { sunoRoutes } from './routes/suno.js';
import { DEFAULT_TASK_POLL, pollTasks } from './tasks/task-poller.js';

/** How long the run lock outlives a killed holder (a live run renews it every third of this): polling pauses at most this long when its replica dies. */
const TASK_POLL_LOCK_TTL_MS = 15_000;

export { relayConfigShape, relaySettings } from './config.js';

export interface RelayPluginOptions extends Partial<Omit<RelaySettings, 'limits'>> {
  infra: Infrastructure;
  /** PostgreSQL URL; SQLite under dataDir when absent. The task store lives there (only task routes touch it). */
  databaseUrl?: string;
  dataDir: string;
  /** Database schema (PostgreSQL); tests pass their own. */
  schema?: string;
  limits?: Partial<RelaySettings['limits']>;
}

/**
 * Relay: the OpenAI-compatible data plane. Warm requests touch no SQL and call no other service;
 * the database holds only the async tasks, which the task routes and the task poller alone read
 * and write.
 */
const relayPlugin: FastifyPluginAsync<RelayPluginOptions> = async (app, settings) => {
  const { infra, limits = {} } = settings;
  useAccessControl(app, 'relay');
  app.setErrorHandler(relayErrorHandler);
  const { counters, kv, logger } = infra;
  const db = await openDatabase({
    url: settings.databaseUrl,
    dataDir: settings.dataDir,
    schema: settings.schema ?? 'relay',
    entities: relayEntities,
    migrations: relayMigrations,
    logger,
  });
  // Every subscription goes through this bus, so what the relay's consumers give up stays in its database.
  const deadLetters = keepDeadLetters(infra.bus, 'relay', { db, logger });
  const { bus } = deadLetters;
  const options = await createOptionsMirror({ bus, logger });
  const streamIdleTimeoutMs = limits.streamIdleTimeoutMs ?? 60_000;
  const connectTimeoutMs = limits.connectTimeoutMs ?? 10_000;
  const headersTimeoutMs = limits.headersTimeoutMs ?? 300_000;
  const quota = countingHolds(
    createQuotaGate({ counters, kv, bus, logger, instanceName: settings.instanceName ?? defaultInstanceName(), leaseTtlMs: settings.leaseTtlMs }),
  );
  // The outbox, when configured (main.ts and the all-in-one gateway do): what a killed relay left unpublished goes out first.
  const outbox = settings.usageOutbox
    ? UsageOutbox.open(path.join(settings.dataDir, 'usage-outbox', settings.usageOutbox.name), settings.usageOutbox, logger)
    : undefined;
  const usage = createUsagePublisher({ bus, logger, ...(outbox ? { outbox } : {}) });
  const unwatchOutbox = outbox ? watchOutbox(outbox.outbox) : undefined;
  /** Holds of stopped relays go back to the counters, and each leaves its usage record (nothing charged). */
  const releasedHolds = (released: QuotaHold[]) => {
    let published = 0;
    for (const hold of released) {
      if (!hold.record) continue;
      // The gate parsed it where it came back from Redis.
      usage.publish(hold.record);
      published += 1;
    }
    return `released ${released.length} hold${released.length === 1 ? '' : 's'} of stopped relays, ${published} usage record${published === 1 ? '' : 's'} published`;
  };
  // Before serving: the lease is ours, and a previous incarnation's holds are given back; then
  // what the outbox kept goes out (a request whose hold was just released is recorded from it).
  const swept = await quota.start();
  releasedHolds(swept);
  usage.resume(new Set(swept.map((hold) => hold.requestId)));
  const egress = createEgressClient({
    // Every upstream call brings its channel's own flag (channel-egress.ts, rule R2); a call
    // without one is refused private networks.
    allowPrivateNetwork: () => false,
    connectTimeoutMs,
    headersTimeoutMs,
    // The stream's own idle guard answers the client; this one only frees a dead socket.
    bodyTimeoutMs: streamIdleTimeoutMs * 2,
    keepAliveTimeoutMs: 60_000,
    ...(limits.connectionsPerOrigin ? { connections: limits.connectionsPerOrigin } : {}),
  });
  const context: RelayContext = {
    bus,
    kv,
    logger,
    options,
    tokens: await createTokenCache({ bus, logger }),
    channels: await createChannelDirectory({ bus, kv, logger }),
    egress,
    accessTokens: createAccessTokens(egress, logger),
    limitGate: new LimitGate({ counters, kv, bus, logger, options, failOpen: new Set(settings.limitsFailOpen ?? ['rate']) }),
    quota,
    usage,
    objects: createStoredObjects(kv, logger),
    limits: {
      streamIdleTimeoutMs,
      connectTimeoutMs,
      headersTimeoutMs,
      answerTimeoutMs: limits.answerTimeoutMs ?? 3_600_000,
      connectionsPerOrigin: limits.connectionsPerOrigin ?? 0,
      maxUpstreamBodyBytes: limits.maxUpstreamBodyBytes ?? 64 * 1024 * 1024,
      requestBodyBytes: limits.requestBodyBytes ?? DEFAULT_REQUEST_BODY_BYTES,
      uploadBytes: limits.uploadBytes ?? DEFAULT_UPLOAD_BYTES,
      idempotencyAnswerBytes: limits.idempotencyAnswerBytes ?? 1024 * 1024,
    },
  };
  const subscriptions: Subscription[] = [await registerChannelOperations(context)];

  // docs/architecture.md section 5.2: nothing leaks (billing's pending sweep covers the holds Redis lost).
  await infra.jobs.work(
    JobName.RelayHoldsSweep,
    recordedJob(JobName.RelayHoldsSweep, async () => releasedHolds(await quota.sweep()), { kv, logger }),
  );
  await infra.jobs.repeat(JobName.RelayHoldsSweep, {}, { everyMs: settings.holdSweepEveryMs ?? 30_000 });

  // docs/architecture.md section 5.6: one poll at a time across replicas (the run lock); any replica may run it.
  const taskPoll = Object.assign({}, DEFAULT_TASK_POLL, settings.taskTimeoutMs ? { timeoutMs: settings.taskTimeoutMs } : {});
  await infra.jobs.work(
    JobName.RelayTasksPoll,
    recordedJob(JobName.RelayTasksPoll, async () => pollTasks(context, db, taskPoll), { kv, logger, exclusive: { lockTtlMs: TASK_POLL_LOCK_TTL_MS } }),
  );
  await infra.jobs.repeat(JobName.RelayTasksPoll, {}, { everyMs: settings.taskPollEveryMs ?? 15_000 });

  app.addHook('onClose', async () => {
    await context.usage.flush(10_000);
    outbox?.outbox.close();
    unwatchOutbox?.();
    await quota.close();
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    await Promise.all([context.tokens.close(), context.channels.close(), options.close()]);
    await context.egress.close();
    await db.destroy();
  });

  registerDiagnostics(app, 'relay', options);
  // Declared up front, so every request object has the same shape (requireApiKey sets it).
  app.decorateRequest('relayCaller', null);
  for (const routes of [
    openAiRoutes,
    uploadRoutes,
    storedResponseRoutes,
    anthropicRoutes,
    geminiRoutes,
    modelRoutes,
    playgroundRoutes,
    dashboardRoutes,
    realtimeRoutes,
  ])
    await app.register(routes, { context });
  await app.register(midjourneyRoutes, { context, db });
  await app.register(sunoRoutes, { context, db });
  await app.register(taskRoutes, { db, context });
  await app.register(limitRoutes, { context });
  await app.register(deadLetterRoutes, { deadLetters });
};

export default relayPlugin;
