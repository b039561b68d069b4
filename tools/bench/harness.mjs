// What the benchmarks share (run.mjs, soak.mjs): child processes pinned with taskset and always
// stopped, free ports, the machine and its CPU time, resident memory from /proc, the HTTP load
// client, the mock upstream, and our gateway provisioned against it, all-in-one or as the
// distributed cluster on this machine's PostgreSQL, NATS and Redis.
//
// Importing this module installs the exit and signal handlers that stop every child it started
// (and run every cleanup registered with onStop).
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { entryOf, nodeFlags, serviceNames, startCluster } from '../cluster/cluster.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const env = process.env;
/** A numeric knob from the environment. */
export const setting = (name, fallback) => (env[name] ? Number(env[name]) : fallback);
export const log = (line) => process.stderr.write(`[bench] ${line}\n`);
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Requests to the mock. It reads its behaviour from the model suffix (';' so the name fits a
// comma-separated channel model list).

export const MODEL = 'mock-gpt';
/** A mock model whose answer is `chunks` chunks `delayMs` apart. */
export const mockModel = (chunks, delayMs) => `${MODEL}@chunks=${chunks};delay=${delayMs}`;
/** The JSON body of a one-message chat. */
export const chatRequest = ({ model = MODEL, content, maxTokens, stream = false }) =>
  JSON.stringify({ model, messages: [{ role: 'user', content }], max_tokens: maxTokens, ...(stream ? { stream: true } : {}) });

// ---------------------------------------------------------------------------------------------
// Machine and CPU pinning.

export const cpus = os.availableParallelism();
export const canPin = process.platform === 'linux' && cpus >= 2 && hasTaskset();
/** The system under test. */
export const CPU_SUT = 0;
/** The load drivers (this process) and the mock. */
export const CPU_LOAD = 1;

function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins every thread of a running process to one CPU; false when it could not. */
export function pinProcess(pid, cpu) {
  if (!canPin) return false;
  try {
    execFileSync('taskset', ['-a', '-cp', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** This process (the load drivers) on CPU_LOAD. */
export function pinLoadDrivers() {
  if (canPin && !pinProcess(process.pid, CPU_LOAD)) log('could not pin this process');
}

export function machine() {
  const cpuinfo = readText('/proc/cpuinfo');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  return {
    nproc: cpus,
    cpu: model.trim(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
    loadavg: os.loadavg().map((value) => Math.round(value * 100) / 100),
    pinned: canPin ? `system under test on CPU ${CPU_SUT}; load drivers and mock on CPU ${CPU_LOAD}` : 'not pinned',
  };
}

export function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

// CPU time, to tell how much of the machine other processes took during the run (USER_HZ = 100).
const TICKS = 100;
/** CPU seconds of the children (ours and the cluster's) stopped so far. */
let stoppedChildrenCpuSeconds = 0;

/** Busy CPU seconds of the whole machine since boot (everything but idle and iowait). */
function machineBusySeconds() {
  const fields = readText('/proc/stat').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  if (fields.length < 4) return NaN;
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return (total - fields[3] - (fields[4] ?? 0)) / TICKS;
}

/** User + system CPU seconds of a process (its own threads). */
function processCpuSeconds(pid) {
  const stat = readText(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.length > 13 ? (Number(fields[11]) + Number(fields[12])) / TICKS : 0;
}

/**
 * Starts measuring the CPU time of `pids` and of the whole machine; the returned function gives,
 * since then, the processes' share of one CPU and the machine's busy share of all its CPUs (percent).
 */
export function cpuMeter(pids) {
  const list = [pids].flat();
  const processes = () => list.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
  const started = Date.now();
  const processesAtStart = processes();
  const machineAtStart = machineBusySeconds();
  return () => {
    const seconds = (Date.now() - started) / 1000;
    const percent = (value) => (Number.isFinite(value) ? Math.round(value * 100) : null);
    return {
      processPercent: percent((processes() - processesAtStart) / seconds),
      machinePercent: percent((machineBusySeconds() - machineAtStart) / (seconds * cpus)),
    };
  };
}

/** Counts a child's CPU time as the bench's own: call just before it is stopped. */
function accountChildCpu(pid) {
  stoppedChildrenCpuSeconds += processCpuSeconds(pid);
}

/**
 * Starts counting the machine's CPU time; `otherShare()` is then the share of it (0 to 1) that went
 * to processes other than this one and its children, from the start to now.
 */
export function cpuAccount() {
  const started = Date.now();
  const busyAtStart = machineBusySeconds();
  const childrenAtStart = stoppedChildrenCpuSeconds;
  const ownAtStart = process.cpuUsage();
  return {
    otherShare() {
      const seconds = (Date.now() - started) / 1000;
      const own = process.cpuUsage(ownAtStart);
      const other = machineBusySeconds() - busyAtStart - (stoppedChildrenCpuSeconds - childrenAtStart) - (own.user + own.system) / 1e6;
      return Number.isFinite(other) ? Math.max(0, Math.round((other / (seconds * cpus)) * 1000) / 1000) : null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Child processes: all tracked, all stopped at the end, on errors and on signals.

const children = new Set();
/** Async cleanups (a cluster, a database) run by stopAll after the children are stopped. */
const cleanups = new Set();

export function startChild(name, args, { env: childEnv = env, cpu } = {}) {
  const [command, argv] =
    canPin && cpu !== undefined
      ? ['taskset', ['-c', String(cpu), process.execPath, ...args]] // taskset execs node: same pid
      : [process.execPath, args];
  const child = spawn(command, argv, { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  child.label = name;
  child.tail = [];
  children.add(child);
  child.once('exit', () => children.delete(child));
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      child.tail.push(line);
      if (child.tail.length > 30) child.tail.shift();
      child.emit('line', line);
    });
  }
  return child;
}

export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  accountChildCpu(child.pid);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** Registers a cleanup for stopAll; returns a function that runs it now (once) instead. */
export function onStop(cleanup) {
  const once = async () => {
    if (!cleanups.delete(once)) return;
    await cleanup().catch((error) => log(`cleanup failed: ${error.message}`));
  };
  cleanups.add(once);
  return once;
}

export async function stopAll() {
  await Promise.all([...children].map(stopChild));
  for (const cleanup of [...cleanups].reverse()) await cleanup();
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping children`);
    void stopAll().finally(() => process.exit(130));
  });
}

/** Stops everything and exits if the run takes longer than `ms`. */
export function startWatchdog(ms) {
  const watchdog = setTimeout(() => {
    log(`watchdog: the run took longer than ${Math.round(ms / 60_000)} min; stopping`);
    void stopAll().finally(() => process.exit(1));
  }, ms);
  watchdog.unref();
  return watchdog;
}

/** Runs `main`, then exits 0; on an error logs it, stops everything and exits 1. */
export function runMain(main) {
  main().then(
    () => process.exit(0),
    async (error) => {
      log(`failed: ${error.stack ?? error}`);
      await stopAll();
      process.exit(1);
    },
  );
}

export function exitedEarly(child) {
  return new Promise((_, reject) =>
    child.once('exit', (code, signal) => {
      const lines = child.tail.filter((line) => line.trim() !== '');
      const error = lines.find((line) => /error/i.test(line)) ?? lines.at(-1) ?? '';
      reject(new Error(`${child.label} exited (${code ?? signal}) before it was ready: ${error.trim()}`));
    }),
  );
}

export async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls GET url until it answers (any status), the child exits, or the timeout passes. */
export async function waitForHttp(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  const early = exitedEarly(child);
  early.catch(() => {});
  while (Date.now() < deadline) {
    const ok = await Promise.race([
      fetch(url, { signal: AbortSignal.timeout(1000) }).then(
        () => true,
        () => false,
      ),
      early,
    ]);
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${child.label} did not answer ${url} within ${timeoutMs / 1000} s`);
}

// ---------------------------------------------------------------------------------------------
// Resident memory, from /proc/<pid>/status.

export function rssMiB(pid) {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readText(`/proc/${pid}/status`))?.[1];
  return kb ? Math.round((Number(kb) / 1024) * 10) / 10 : undefined;
}

/** The RSS of one process, or the sum over several (undefined once one is gone), sampled every 100 ms. */
export function rssSampler(pids) {
  const list = [pids].flat();
  const total = () => {
    const values = list.map(rssMiB);
    return values.includes(undefined) ? undefined : Math.round(values.reduce((sum, value) => sum + value, 0) * 10) / 10;
  };
  let peak = 0; // over the whole run
  let phasePeak = 0; // since the last reset()
  const sample = () => {
    const value = total();
    if (value !== undefined) {
      peak = Math.max(peak, value);
      phasePeak = Math.max(phasePeak, value);
    }
    return value;
  };
  sample();
  const timer = setInterval(sample, 100);
  timer.unref();
  return {
    now: sample,
    peak: () => (sample(), peak),
    phasePeak: () => (sample(), phasePeak),
    reset: () => {
      phasePeak = 0;
      sample();
    },
    stop: () => clearInterval(timer),
  };
}

// ---------------------------------------------------------------------------------------------
// Load client.

/** A POST of `body` to the target's /v1/chat/completions with its headers (http.request: end() sends it). */
export function postChat(target, agent, body, onResponse) {
  return http.request(
    `${target.url}/v1/chat/completions`,
    { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...target.headers } },
    onResponse,
  );
}

/** One HTTP request; resolves with status, first-byte and end times (ns), and the body text when asked. */
export function send(target, agent, body, keepBody) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const request = postChat(target, agent, body, (response) => {
      let firstData = 0n;
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        if (keepBody) text += chunk;
        // Streams: the first byte of the first `data:` line; otherwise the first body byte.
        if (firstData === 0n && (!keepBody || text.includes('data:'))) firstData = process.hrtime.bigint();
      });
      // A promise settles once: whichever of end, error and close comes first.
      response.on('end', () => resolve({ status: response.statusCode, started, firstData, ended: process.hrtime.bigint(), text }));
      response.on('error', (error) => resolve({ status: response.statusCode, started, error, text }));
      response.on('close', () =>
        resolve({
          status: response.statusCode,
          started,
          error: response.complete ? undefined : new Error('closed early'),
          firstData,
          ended: process.hrtime.bigint(),
          text,
        }),
      );
    });
    request.setTimeout(30_000, () => request.destroy(new Error('timeout')));
    request.on('error', (error) => resolve({ status: 0, started, error, text: '' }));
    request.end(body);
  });
}

/** Why a stream read with send(…, true) failed, or undefined: 200, at least `chunks` data events besides [DONE], and [DONE] last. */
export function checkStream(result, chunks) {
  if (result.error) return `error ${result.error.code ?? result.error.message}`;
  if (result.status !== 200) return `status ${result.status}`;
  const events = result.text.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  if (events.at(-1)?.trim() !== 'data: [DONE]') return 'no [DONE]';
  if (events.length - 1 < chunks) return `only ${events.length - 1} events`;
  return undefined;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Nanoseconds (bigint) to milliseconds. */
export const ms = (ns) => Number(ns) / 1e6;
export const round3 = (value) => (Number.isFinite(value) ? Math.round(value * 1000) / 1000 : null);

// ---------------------------------------------------------------------------------------------
// The mock upstream and our gateway.

export async function startMock() {
  const child = startChild('mock', ['tools/mock-upstream/server.mjs', '--port=0', '--max-recorded=0'], { cpu: CPU_LOAD });
  const url = await Promise.race([
    new Promise((resolve) =>
      child.on('line', (line) => {
        const match = /listening on (http:\/\/\S+)/.exec(line);
        if (match) resolve(match[1]);
      }),
    ),
    exitedEarly(child),
    sleep(15_000).then(() => {
      throw new Error('the mock upstream did not start in 15 s');
    }),
  ]);
  return { child, url };
}

/** Console API call on our gateway; returns the envelope's data or throws with the message. */
export async function api(gatewayUrl, session, method, route, body) {
  const response = await fetch(`${gatewayUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json', ...(session ? { cookie: session.cookie, 'New-Api-User': String(session.userId) } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let envelope;
  try {
    envelope = JSON.parse(text);
  } catch {
    envelope = undefined;
  }
  if (!response.ok || !envelope?.success) throw new Error(`${method} ${route}: HTTP ${response.status} ${envelope?.message ?? text.slice(0, 200)}`);
  return { data: envelope.data, response };
}

const ROOT_PASSWORD = 'bench-root-pw-1';

/** What every gateway process of the bench runs with (all-in-one, or each process of the cluster). */
const productEnv = {
  HOST: '127.0.0.1',
  INITIAL_ROOT_PASSWORD: ROOT_PASSWORD,
  GLOBAL_API_RATE_LIMIT: '0',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
};

/**
 * Through the gateway's console API: logs in as root, allows private-network upstreams (the mock is
 * on loopback), prices `models`, creates an unlimited sk- token and a channel (type 1) to the mock
 * serving them. Resolves to the relay's request headers, and `notReady` when the channel failed.
 */
async function provision(url, mockUrl, models) {
  const { data: user, response } = await api(url, undefined, 'POST', '/api/user/login', { username: 'root', password: ROOT_PASSWORD });
  const cookie = (response.headers.getSetCookie?.() ?? []).map((value) => value.split(';')[0]).find((value) => value.startsWith('session='));
  if (!cookie) throw new Error('login gave no session cookie');
  const session = { cookie, userId: user.id };
  await api(url, session, 'PUT', '/api/option/', { key: 'AllowPrivateNetworkUpstreams', value: 'true' });
  await api(url, session, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(Object.fromEntries(models.map((model) => [model, 1]))) });
  const { data: tokens } = await api(url, session, 'POST', '/api/token/', { name: 'bench', remain_quota: 0, unlimited_quota: true });
  const key = (Array.isArray(tokens) ? tokens[0] : tokens)?.key;
  if (!key) throw new Error('token creation returned no key');
  const headers = { authorization: `Bearer ${key.startsWith('sk-') ? key : `sk-${key}`}` };
  try {
    await api(url, session, 'POST', '/api/channel/', {
      type: 1,
      name: 'mock',
      key: 'mock-key',
      base_url: mockUrl,
      models: models.join(','),
      group: 'default',
      allow_private_network: true,
    });
  } catch (error) {
    return { headers, notReady: `channel creation failed (${error.message})` };
  }
  return { headers };
}

/**
 * Starts our gateway all-in-one (SQLite in `dataDir`, in-process bus, jobs and counters) on
 * CPU_SUT, with the product's V8 flags (as `npm start` runs it) and `nodeArgs` before its entry,
 * and provisions a channel to the mock serving `models` and a token. Resolves to a target for
 * send() with the child.
 */
export async function startGateway({ mockUrl, dataDir, models, nodeArgs = [] }) {
  const entry = path.join(root, 'services/gateway/dist/main.js');
  if (!fs.existsSync(entry)) throw new Error('services/gateway/dist/main.js is missing: compile first (npx tsc -b)');
  const port = await freePort();
  const childEnv = { ...env, ...productEnv, PORT: String(port), DATA_DIR: dataDir };
  // No service or server URLs: everything in this one process.
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'IDENTITY_URL', 'BILLING_URL', 'CHANNELS_URL', 'RELAY_URL', 'NOTIFIER_URL', 'NAMESPACE'])
    delete childEnv[name];
  const child = startChild('gateway', [...nodeFlags, ...nodeArgs, entry], { env: childEnv, cpu: CPU_SUT });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, child);
  const { headers, notReady } = await provision(url, mockUrl, models);
  return { name: 'gateway', url, child, headers, notes: [], notReady };
}

// ---------------------------------------------------------------------------------------------
// The distributed topology: tools/cluster on this machine's servers, in a database and a
// namespace of its own.

const servers = {
  database: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
  nats: env.NATS_URL || 'nats://127.0.0.1:4222',
  redis: env.REDIS_URL || 'redis://127.0.0.1:6379',
};

async function adminQuery(sql) {
  const client = new pg.Client({ connectionString: servers.database });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A cluster child's pid: this process's child running that service's entry. */
function clusterPid(name) {
  const entry = entryOf(name);
  for (const pid of fs.readdirSync('/proc').filter((file) => /^\d+$/.test(file))) {
    const stat = readText(`/proc/${pid}/stat`);
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === process.pid && readText(`/proc/${pid}/cmdline`).split('\0').includes(entry)) return Number(pid);
  }
  throw new Error(`no ${name} process found among this process's children`);
}

/** Polls one chat through `target` until it answers 200: the relay learns channels, options and tokens over the bus. */
async function waitForRelay(target, model, timeoutMs = 30_000) {
  const agent = new http.Agent({ keepAlive: false });
  const body = chatRequest({ model, content: 'ping', maxTokens: 4 });
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await send(target, agent, body, true);
    if (last.status === 200) return undefined;
    await sleep(250);
  }
  return `no 200 within ${timeoutMs / 1000} s, last ${last.error ? last.error.message : `HTTP ${last.status}`}: ${last.text.slice(0, 160)}`;
}

/**
 * Starts the distributed cluster (tools/cluster: every service its own process, the gateway
 * proxying) on a fresh PostgreSQL database `bench_<random>` and NAMESPACE, on this machine's NATS
 * and Redis; the relay is pinned to CPU_SUT, the other processes float. Provisions it through the
 * gateway as startGateway does and waits until the relay answers. Resolves to
 * { gatewayUrl, relayUrl, pids: { gateway, relay }, headers, notReady, stop() }; stop() (also
 * run by stopAll) stops the cluster, removes the namespace's streams and keys and drops the database.
 */
export async function startDistributed({ mockUrl, dataDir, models }) {
  const name = `bench_${crypto.randomBytes(5).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const databaseUrl = Object.assign(new URL(servers.database), { pathname: `/${name}` }).href;
  let cluster;
  const stop = onStop(async () => {
    if (cluster) {
      for (const member of [...serviceNames, 'gateway']) {
        try {
          accountChildCpu(clusterPid(member));
        } catch {
          // already gone
        }
      }
      await cluster.stop();
    }
    const { removeNamespace } = await import('@aigw/platform/testing');
    await removeNamespace({ natsUrl: servers.nats, redisUrl: servers.redis, databaseUrl }, name);
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  const tail = [];
  const ports = {};
  for (const member of [...serviceNames, 'gateway']) ports[member] = await freePort();
  try {
    cluster = await startCluster({
      env: { ...env, ...productEnv, DATABASE_URL: databaseUrl, NATS_URL: servers.nats, REDIS_URL: servers.redis, NAMESPACE: name, DATA_DIR: dataDir },
      ports,
      log: (member, line) => {
        tail.push(`[${member}] ${line}`);
        if (tail.length > 30) tail.shift();
      },
    });
  } catch (error) {
    await stop();
    throw new Error(`${error.message}; last lines: ${tail.slice(-5).join(' | ')}`, { cause: error });
  }
  const pids = { gateway: clusterPid('gateway'), relay: clusterPid('relay') };
  if (canPin && !pinProcess(pids.relay, CPU_SUT)) log('could not pin the relay');
  const gatewayUrl = cluster.gatewayUrl;
  const { headers, notReady } = await provision(gatewayUrl, mockUrl, models);
  return {
    namespace: name,
    gatewayUrl,
    relayUrl: cluster.servicesUrls.relay,
    pids,
    headers,
    notReady: notReady ?? (await waitForRelay({ url: gatewayUrl, headers }, models[0])),
    stop,
  };
}
