// npm run bench:ledger: how many `relay.usage.recorded` events per second billing's usage ledger
// applies on PostgreSQL through NATS (docs/architecture.md section 5.3). Run after a build
// (`npx tsc -b tsconfig.json`); it imports billing's compiled modules.
//
// In a namespace of its own on the machine's PostgreSQL and NATS (and Redis, for the held
// counters billing releases after each commit), as the tests isolate themselves: billing's
// tables in their own schema, its usage consumer as the plugin subscribes it (subscribeUsage),
// BENCH_LEDGER_USERS users each with a limited and an unlimited token. Then BENCH_LEDGER_EVENTS
// usage events (limited, unlimited and playground requests, some free) are published through the
// bus as fast as acknowledged publishes go, BENCH_LEDGER_DUPLICATES of them a second time under a
// new event id (only billing's unique key can catch those). The figure is applied events per
// second, from the first publish until every request is in the ledger. Then the run checks what
// was written (one ledger and one log row per request, every balance, used quota, request count
// and token exact, reconcile() clean) and removes the namespace: streams, keys and schema.
// The figures go to stdout and to tools/bench/results/ledger.json, which `npm run bench` reads
// for its targets.
//
// Knobs (env): BENCH_LEDGER_EVENTS (20000), BENCH_LEDGER_USERS (200), BENCH_LEDGER_DUPLICATES
// (0.02), BENCH_LEDGER_PUBLISH_WINDOW (512 publishes in flight), BENCH_LEDGER_BACKLOG (unset:
// when 1, everything is published before billing subscribes, so the figure is the consumer
// draining a backlog alone, without the publisher on the same CPUs), BENCH_LEDGER_BILLING_DIST
// (services/billing/dist: billing's compiled folder; point it at a copy of an older build, beside a
// node_modules link to this checkout's, to measure the code before a change). DATABASE_URL,
// NATS_URL and REDIS_URL as for the tests (default: the local servers).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect } from 'nats';
import { defaultOptionValues } from '@aigw/contracts';
import { createLogger, openDatabase, publishEvent, queryRows } from '@aigw/platform';
import { createTestEnvironment, seededRandom, testServices } from '@aigw/platform/testing';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const env = process.env;
const setting = (name, fallback) => (env[name] ? Number(env[name]) : fallback);
const config = {
  events: setting('BENCH_LEDGER_EVENTS', 20_000),
  users: setting('BENCH_LEDGER_USERS', 200),
  duplicates: setting('BENCH_LEDGER_DUPLICATES', 0.02),
  publishWindow: setting('BENCH_LEDGER_PUBLISH_WINDOW', 512),
  backlog: env.BENCH_LEDGER_BACKLOG === '1',
  billingDist: path.resolve(root, env.BENCH_LEDGER_BILLING_DIST ?? 'services/billing/dist'),
  /** Gives up (and still cleans up) when the ledger has not caught up by then. */
  watchdogMs: 10 * 60_000,
};
const INITIAL_BALANCE = 1_000_000_000;
const TOKEN_QUOTA = 500_000_000;

const log = (line) => process.stderr.write(`[bench:ledger] ${line}\n`);

/** billing's compiled modules: its package exports only the plugin, so by path. */
const billing = (file) => {
  const url = pathToFileURL(path.join(config.billingDist, file)).href;
  return import(url).catch((error) => {
    throw new Error(`${url}: ${error.message} (compile first: npx tsc -b tsconfig.json)`);
  });
};
const [{ subscribeUsage }, { reconcile }, { billingEntities, LedgerKind, TokenEntity }, { billingMigrations }, { applyToAccount, ensureAccount }] =
  await Promise.all([
    billing('usage-consumer.js'),
    billing('reconcile.js'),
    billing('entities/index.js'),
    billing('migrations/index.js'),
    billing('ledger.js'),
  ]);

/** The options billing reads, at their defaults: consume logs and hourly data on, as shipped. */
function defaultOptions() {
  const values = defaultOptionValues();
  return { get: (key) => values[key], all: () => values, onChange: () => undefined, close: async () => undefined };
}

/** Users with their balance granted through the ledger (so reconcile() starts clean), and two tokens each. */
async function createUsers(db) {
  const users = [];
  for (let index = 0; index < config.users; index++) {
    const userId = 1_000 + index;
    await db.transaction(async (manager) => {
      await ensureAccount(manager, userId, { username: `bench-${index}` });
      await applyToAccount(manager, { userId, kind: LedgerKind.Grant, amount: INITIAL_BALANCE });
    });
    const token = async (name, unlimited) => {
      const result = await db.getRepository(TokenEntity).insert({
        user_id: userId,
        name,
        key_hash: `${name}-${userId}`.padEnd(64, '0'),
        key_prefix: 'bnch',
        key_encrypted: '',
        created_time: Math.floor(Date.now() / 1000),
        remain_quota: unlimited ? 0 : TOKEN_QUOTA,
        unlimited_quota: unlimited,
      });
      return Number(result.identifiers[0].id);
    };
    users.push({ userId, limited: await token('limited', false), unlimited: await token('unlimited', true) });
  }
  return users;
}

/** The usage events, and what they must add up to per user and token. */
function createEvents(users) {
  const random = seededRandom(20_260_000);
  const pick = (max) => Math.floor(random() * max);
  const expected = { users: new Map(), tokens: new Map() };
  const events = [];
  const createdAt = Math.floor(Date.now() / 1000);
  for (let index = 0; index < config.events; index++) {
    const user = users[pick(users.length)];
    const kind = pick(3); // limited token, unlimited token, playground (no token)
    const quota = random() < 0.05 ? 0 : 1 + pick(5_000);
    const tokenId = [user.limited, user.unlimited, 0][kind];
    const usage = {
      request_id: `bench-${index}`,
      user_id: user.userId,
      token_id: tokenId,
      token_name: ['limited', 'unlimited', ''][kind],
      model_name: ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4'][pick(3)],
      group: 'default',
      channel_id: 1 + pick(4),
      prompt_tokens: pick(4_000),
      completion_tokens: pick(1_000),
      quota,
      use_time_ms: pick(20_000),
      is_stream: random() < 0.5,
      created_at: createdAt - pick(7_200),
      content: '',
      other: { model_ratio: 1.25, completion_ratio: 4 },
    };
    events.push({ id: `usage-${index}`, usage });
    if (random() < config.duplicates) events.push({ id: `again-${index}`, usage });
    const sums = expected.users.get(user.userId) ?? { spent: 0, requests: 0 };
    expected.users.set(user.userId, { spent: sums.spent + quota, requests: sums.requests + 1 });
    if (tokenId > 0) expected.tokens.set(tokenId, { used: (expected.tokens.get(tokenId)?.used ?? 0) + quota, limited: kind === 0 });
  }
  return { events, expected };
}

/** Publishes everything with up to `publishWindow` acknowledged publishes in flight. */
async function publishAll(bus, events) {
  let next = 0;
  const lane = async () => {
    while (next < events.length) {
      const { id, usage } = events[next++];
      await publishEvent(bus, 'relay.usage.recorded', usage, id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.publishWindow, events.length) }, lane));
}

const countUsage = async (db) => Number((await queryRows(db, 'SELECT COUNT(*) AS n FROM ledger_entries WHERE kind = $1', [LedgerKind.Usage]))[0].n);

/** Polls the ledger until every request is in, noting when; fails at the watchdog. */
async function waitForLedger(db, target, started) {
  const deadline = started + config.watchdogMs;
  for (;;) {
    const applied = await countUsage(db);
    if (applied >= target) return performance.now();
    if (performance.now() > deadline) throw new Error(`only ${applied} of ${target} requests applied within ${config.watchdogMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every copy published (duplicates included) was handled: the JetStream consumer has nothing pending or unacknowledged. */
async function waitForIdleConsumer(natsUrl, namespace) {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    const stream = `${namespace}_relay`.toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
    const deadline = Date.now() + 60_000;
    for (;;) {
      for await (const info of jsm.consumers.list(stream)) {
        if (info.config.filter_subject?.endsWith('relay.usage.recorded') && info.num_pending === 0 && info.num_ack_pending === 0) return;
      }
      if (Date.now() > deadline) throw new Error('the usage consumer still has events pending after 60 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await nc.close();
  }
}

/** What was written must be exactly what was published, once per request. */
async function check(db, expected) {
  const problems = [];
  const mismatches = await reconcile(db);
  if (mismatches.length > 0) problems.push(`reconcile: ${mismatches.length} accounts do not match their ledger, e.g. ${JSON.stringify(mismatches[0])}`);
  const [{ ledger, requests, logs }] = await queryRows(
    db,
    'SELECT (SELECT COUNT(*) FROM ledger_entries WHERE kind = $1) AS ledger, (SELECT COUNT(DISTINCT request_id) FROM ledger_entries WHERE kind = $2) AS requests, ' +
      '(SELECT COUNT(*) FROM logs WHERE type = $3) AS logs',
    [LedgerKind.Usage, LedgerKind.Usage, 2],
  );
  for (const [what, value] of Object.entries({ 'ledger rows': ledger, 'distinct request ids': requests, 'consume logs': logs }))
    if (Number(value) !== config.events) problems.push(`${what}: ${value}, expected ${config.events}`);
  const accounts = await queryRows(db, 'SELECT user_id, quota, used_quota, request_count FROM accounts');
  for (const account of accounts) {
    const sums = expected.users.get(Number(account.user_id)) ?? { spent: 0, requests: 0 };
    const want = { quota: INITIAL_BALANCE - sums.spent, used_quota: sums.spent, request_count: sums.requests };
    const got = { quota: Number(account.quota), used_quota: Number(account.used_quota), request_count: Number(account.request_count) };
    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`account ${account.user_id}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }
  const tokens = await queryRows(db, 'SELECT id, remain_quota, used_quota, unlimited_quota FROM tokens');
  for (const token of tokens) {
    const used = expected.tokens.get(Number(token.id))?.used ?? 0;
    const remain = token.unlimited_quota ? 0 : TOKEN_QUOTA - used;
    if (Number(token.used_quota) !== used || Number(token.remain_quota) !== remain)
      problems.push(`token ${token.id}: remain ${token.remain_quota} used ${token.used_quota}, expected remain ${remain} used ${used}`);
  }
  const [{ count }] = await queryRows(db, 'SELECT COALESCE(SUM(count), 0) AS count FROM quota_data');
  if (Number(count) !== config.events) problems.push(`hourly data counts ${count} requests, expected ${config.events}`);
  return problems;
}

/** This process's CPU time and the machine's busy and total time (Linux /proc/stat; zeros elsewhere), in ms. */
function cpuTimes() {
  const usage = process.cpuUsage();
  let busy = 0;
  let total = 0;
  try {
    // The aggregate "cpu" line, in clock ticks (USER_HZ, 100 per second on Linux): idle and iowait are not busy.
    const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    total = ticks.reduce((sum, value) => sum + value, 0) * 10;
    busy = total - (ticks[3] + ticks[4]) * 10;
  } catch {
    // Not Linux: only this process's share is shown.
  }
  return { process: (usage.user + usage.system) / 1000, busy, total, at: performance.now() };
}

function cpuShares(from, to) {
  const elapsed = to.at - from.at;
  const percent = (value) => Math.round(value * 100);
  return {
    process: percent((to.process - from.process) / elapsed),
    machine: to.total > from.total ? percent((to.busy - from.busy) / (to.total - from.total)) : 0,
  };
}

function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // Not Linux: os.cpus() said enough.
  }
  return `${os.availableParallelism()} CPUs (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** The figures, for `npm run bench`'s targets: tools/bench/results/ledger.json. */
function writeResult(figures) {
  const file = path.join(root, 'tools/bench/results/ledger.json');
  const { watchdogMs: _, billingDist, ...settings } = config;
  const result = { date: new Date().toISOString(), machine: machine(), config: { ...settings, billingDist: path.relative(root, billingDist) }, ...figures };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${path.relative(root, file)}`);
}

async function main() {
  const services = await testServices();
  const logger = createLogger({ level: env.LOG_LEVEL ?? 'warn', service: 'bench-ledger' });
  const testEnv = await createTestEnvironment('real', logger);
  let db;
  let subscription;
  let failed;
  const cleanup = async () => {
    await subscription?.unsubscribe().catch(() => undefined);
    await db?.destroy().catch(() => undefined);
    await testEnv.cleanup();
  };
  const interrupted = () => {
    log('interrupted: cleaning up');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const { bus, kv, counters, jobs } = testEnv.infra;
    db = await openDatabase({
      url: testEnv.databaseUrl,
      dataDir: testEnv.dataDir,
      schema: testEnv.schema('billing'),
      entities: billingEntities,
      migrations: billingMigrations,
      logger,
      // As many connections as billing's own pool: the consumer needs one at a time, the poller one.
      poolSize: 10,
    });
    const context = { db, bus, kv, counters, jobs, logger, options: defaultOptions(), tokenKeySecret: Buffer.alloc(32) };
    log(`namespace ${testEnv.namespace}; ${config.users} users, ${config.events} requests (+${Math.round(config.duplicates * 100)}% duplicates)`);
    const users = await createUsers(db);
    const { events, expected } = createEvents(users);

    if (!config.backlog) subscription = await subscribeUsage(context);
    const started = performance.now();
    const published = publishAll(bus, events).then(() => performance.now());
    if (config.backlog) {
      await published;
      log(`published ${events.length} events in ${((performance.now() - started) / 1000).toFixed(1)} s; now billing drains them`);
    }
    const from = config.backlog ? performance.now() : started;
    const cpuFrom = cpuTimes();
    if (config.backlog) subscription = await subscribeUsage(context);
    const appliedAt = await waitForLedger(db, config.events, from);
    const cpu = cpuShares(cpuFrom, cpuTimes());
    const publishedAt = await published;
    await waitForIdleConsumer(services.natsUrl, testEnv.namespace);

    const seconds = (appliedAt - from) / 1000;
    const rate = Math.round(config.events / seconds);
    const publishRate = Math.round(events.length / ((publishedAt - started) / 1000));
    const problems = await check(db, expected);
    console.log(
      [
        `usage ledger on PostgreSQL through NATS (${config.backlog ? 'a backlog drained' : 'published while applied'}): ` +
          `${config.events} requests (${events.length - config.events} duplicates) applied in ${seconds.toFixed(1)} s = ${rate} events/s`,
        `  publishing: ${publishRate} events/s (acknowledged, ${config.publishWindow} in flight, same process)`,
        `  CPU while applying: this process ${cpu.process}% of one CPU, the whole machine ${cpu.machine}% of its ${os.availableParallelism()} ` +
          `(PostgreSQL, NATS, Redis and whatever else runs)`,
        `  checks: ${problems.length === 0 ? 'one ledger and one log row per request, balances, tokens and hourly data exact, reconcile() clean' : 'FAILED'}`,
        `  machine: ${machine()}`,
      ].join('\n'),
    );
    for (const problem of problems.slice(0, 20)) console.log(`  - ${problem}`);
    failed = problems.length > 0;
    writeResult({ eventsPerSecond: rate, seconds: Math.round(seconds * 10) / 10, publishEventsPerSecond: publishRate, cpuPercent: cpu, problems });
  } catch (error) {
    log(`failed: ${error.stack ?? error}`);
    failed = true;
  } finally {
    await cleanup();
  }
  process.exit(failed ? 1 : 0);
}

await main();
