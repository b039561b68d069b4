// A notifier replica in a process of its own, for tests that kill it (SIGKILL) mid-queue. It runs
// the compiled service (dist/, built by `tsc -b`) on the test's namespace (NATS, Redis, the
// PostgreSQL schema), with BullMQ's lock and stalled check shortened so that a mail whose worker
// was killed is taken over in about a second rather than 30 s. Sends one mail at a time.
// It says 'ready' over IPC once it consumes; SIGTERM closes it cleanly.
import { createApp, createBus, createSilentLogger, createStores } from '@aigw/platform';
import { createBullJobs } from '@aigw/platform/testing';
import notifierPlugin from '@aigw/notifier/plugin';

const { NAMESPACE: namespace, NATS_URL: natsUrl, REDIS_URL: redisUrl, DATABASE_URL: databaseUrl, DATA_DIR: dataDir } = process.env;
if (!namespace || !natsUrl || !redisUrl || !databaseUrl || !dataDir)
  throw new Error('mail-worker: NAMESPACE, NATS_URL, REDIS_URL, DATABASE_URL and DATA_DIR are needed');

const logger = createSilentLogger();
const bus = await createBus({ natsUrl, namespace, logger });
const jobs = createBullJobs({ redisUrl, prefix: `aigw-${namespace}`, logger, lockDurationMs: 1_000, stalledIntervalMs: 300 });
const stores = createStores({ redisUrl, prefix: `aigw:${namespace}`, logger });
const infra = {
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

const app = createApp({ logger, bodyLimitBytes: 1_048_576 });
await app.register(notifierPlugin, {
  infra,
  databaseUrl,
  dataDir,
  schema: `${namespace}_notifier`,
  keySecret: 'mail-worker-test-key-secret-0123456789',
  mail: { attempts: 5, backoffMs: 200, concurrency: 1 },
});
await app.ready();
process.send?.('ready');

process.once('SIGTERM', async () => {
  await app.close();
  await infra.close();
  process.exit(0);
});
