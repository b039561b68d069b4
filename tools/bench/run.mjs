// npm run bench: in one run, against the same mock upstream on loopback and with the same load
// drivers, measures (a) the mock directly, (b) our gateway all-in-one (auth, billing, logging on)
// and (c) the Portkey open-source gateway. Writes a markdown table to stdout and
// docs/benchmarks.md, and the raw figures to tools/bench/results/latest.json.
//
// Layout on a machine with 2+ CPUs (taskset): the system under test on CPU 0; this process (the
// load drivers) and the mock on CPU 1. Each gateway runs alone: ours is stopped before Portkey starts.
// Knobs (env): BENCH_RPS_SECONDS (10), BENCH_LATENCY_SECONDS (4), BENCH_TTFT_STREAMS (150),
// BENCH_HOLD_STREAMS (1000), BENCH_TARGETS (direct,gateway,portkey), BENCH_PROFILE_DIR (unset: when
// set, our gateway writes a V8 CPU profile there when it stops, for chrome://inspect or speedscope).
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const env = process.env;
const setting = (name, fallback) => (env[name] ? Number(env[name]) : fallback);

const config = {
  rpsSeconds: setting('BENCH_RPS_SECONDS', 10),
  rpsConnections: 32,
  latencySeconds: setting('BENCH_LATENCY_SECONDS', 4),
  ttftStreams: setting('BENCH_TTFT_STREAMS', 150),
  ttftConcurrency: 10,
  holdStreams: setting('BENCH_HOLD_STREAMS', 1000),
  streamChunks: 50,
  streamDelayMs: 20,
  // The held streams last 10 s, so all of them are open before the first ends however slowly they open.
  holdChunks: 100,
  holdDelayMs: 100,
  /** The concurrency steps of the sustainable-rate figure, and how long each is measured. */
  sustainSteps: [1, 2, 4, 8, 16, 32, 64],
  sustainSeconds: setting('BENCH_SUSTAIN_SECONDS', 2),
  /** The p99 under which a step's rate counts as sustainable (the neutral comparison's bound). */
  sustainP99Ms: 10,
  targets: (env.BENCH_TARGETS ?? 'direct,gateway,portkey').split(','),
  profileDir: env.BENCH_PROFILE_DIR ? path.resolve(env.BENCH_PROFILE_DIR) : undefined,
  watchdogMs: 8 * 60_000,
};
const MODEL = 'mock-gpt';
// The mock reads its behaviour from the model suffix (';' so the name fits a comma-separated channel model list).
const STREAM_MODEL = `mock-gpt@chunks=${config.streamChunks};delay=${config.streamDelayMs}`;
const chatBody = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Say hello in one word.' }], max_tokens: 16 });
const streamBody = JSON.stringify({ model: STREAM_MODEL, messages: [{ role: 'user', content: 'Count to fifty.' }], max_tokens: 64, stream: true });
const HOLD_MODEL = `mock-gpt@chunks=${config.holdChunks};delay=${config.holdDelayMs}`;
const holdBody = JSON.stringify({ model: HOLD_MODEL, messages: [{ role: 'user', content: 'Count to a hundred.' }], max_tokens: 128, stream: true });

const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Machine and CPU pinning.

const cpus = os.availableParallelism();
const canPin = process.platform === 'linux' && cpus >= 2 && hasTaskset();
const CPU_SUT = 0;
const CPU_LOAD = 1;

function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function machine() {
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

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

// CPU time, to tell how much of the machine other processes took during the run (USER_HZ = 100).
const TICKS = 100;
let childCpuSeconds = 0;

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

// ---------------------------------------------------------------------------------------------
// Child processes: all tracked, all killed at the end, on errors and on signals.

const children = new Set();

function startChild(name, args, { env: childEnv = env, cpu } = {}) {
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

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  childCpuSeconds += processCpuSeconds(child.pid);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

const stopAll = () => Promise.all([...children].map(stopChild));

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping children`);
    stopAll().finally(() => process.exit(130));
  });
}

function exitedEarly(child) {
  return new Promise((_, reject) =>
    child.once('exit', (code, signal) => {
      const lines = child.tail.filter((line) => line.trim() !== '');
      const error = lines.find((line) => /error/i.test(line)) ?? lines.at(-1) ?? '';
      reject(new Error(`${child.label} exited (${code ?? signal}) before it was ready: ${error.trim()}`));
    }),
  );
}

async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls GET url until it answers (any status), the child exits, or the timeout passes. */
async function waitForHttp(url, child, timeoutMs = 60_000) {
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
// Resident memory of a process, sampled every 100 ms.

function rssMiB(pid) {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readText(`/proc/${pid}/status`))?.[1];
  return kb ? Math.round((Number(kb) / 1024) * 10) / 10 : undefined;
}

function rssSampler(pid) {
  let peak = 0; // over the whole run
  let phasePeak = 0; // since the last reset()
  const sample = () => {
    const value = rssMiB(pid);
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
// Load drivers.

/** One HTTP request; resolves with status, first-byte and end times (ns), and the body text when asked. */
function send(target, agent, body, keepBody) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const request = http.request(
      `${target.url}/v1/chat/completions`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...target.headers },
      },
      (response) => {
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
      },
    );
    request.setTimeout(30_000, () => request.destroy(new Error('timeout')));
    request.on('error', (error) => resolve({ status: 0, started, error, text: '' }));
    request.end(body);
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const ms = (ns) => Number(ns) / 1e6;
const round3 = (value) => (Number.isFinite(value) ? Math.round(value * 1000) / 1000 : null);

/** Closed-loop latency of small non-streaming chats at a concurrency, with µs resolution. */
async function measureLatency(target, concurrency, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const warmupEnd = Date.now() + 500;
  const end = warmupEnd + seconds * 1000;
  const samples = [];
  let errors = 0;
  const worker = async () => {
    while (Date.now() < end) {
      const result = await send(target, agent, chatBody, false);
      if (result.error || result.status !== 200) errors++;
      else if (Date.now() > warmupEnd) samples.push(ms(result.ended - result.started));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  samples.sort((a, b) => a - b);
  return { concurrency, requests: samples.length, errors, p50: round3(percentile(samples, 50)), p99: round3(percentile(samples, 99)) };
}

/** Max throughput of small non-streaming chats with autocannon (closed loop). */
async function measureRps(target, seconds) {
  const options = {
    url: `${target.url}/v1/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: chatBody,
    connections: config.rpsConnections,
  };
  await autocannon({ ...options, duration: 2 }); // warm-up
  const result = await autocannon({ ...options, duration: seconds });
  return {
    connections: config.rpsConnections,
    seconds,
    rps: Math.round(result.requests.average),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
  };
}

/**
 * The neutral comparison's throughput figure: closed-loop steps of rising concurrency; the highest
 * rate a step carries with p99 under sustainP99Ms and no failed request.
 */
async function measureSustainable(target) {
  const steps = [];
  for (const concurrency of config.sustainSteps) {
    const step = await measureLatency(target, concurrency, config.sustainSeconds);
    steps.push({ concurrency, rps: Math.round(step.requests / config.sustainSeconds), p99: step.p99, errors: step.errors });
  }
  const carried = steps.filter((step) => step.errors === 0 && step.p99 !== null && step.p99 < config.sustainP99Ms);
  const best = carried.reduce((top, step) => (top === null || step.rps > top.rps ? step : top), null);
  return { steps, rps: best?.rps ?? 0, concurrency: best?.concurrency ?? null };
}

/** A stream succeeded: 200, at least streamChunks data events besides [DONE], and [DONE] last. */
function checkStream(result) {
  if (result.error) return `error ${result.error.code ?? result.error.message}`;
  if (result.status !== 200) return `status ${result.status}`;
  const events = result.text.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  if (events.at(-1)?.trim() !== 'data: [DONE]') return 'no [DONE]';
  if (events.length - 1 < config.streamChunks) return `only ${events.length - 1} events`;
  return undefined;
}

/** Time to the first `data:` byte of streams (50 chunks, 20 ms apart), `ttftConcurrency` at a time. */
async function measureTtft(target) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.ttftConcurrency });
  const samples = [];
  const failures = {};
  let remaining = config.ttftStreams;
  const worker = async (index) => {
    // Staggered starts, so the streams' 20 ms ticks do not all land at the same moment.
    await sleep((index * config.streamDelayMs) / config.ttftConcurrency);
    while (remaining-- > 0) {
      const result = await send(target, agent, streamBody, true);
      const failure = checkStream(result);
      if (failure) failures[failure] = (failures[failure] ?? 0) + 1;
      else samples.push(ms(result.firstData - result.started));
    }
  };
  await Promise.all(Array.from({ length: config.ttftConcurrency }, (_, index) => worker(index)));
  agent.destroy();
  samples.sort((a, b) => a - b);
  return {
    streams: config.ttftStreams,
    concurrency: config.ttftConcurrency,
    ok: samples.length,
    failures,
    p50: round3(percentile(samples, 50)),
    p99: round3(percentile(samples, 99)),
  };
}

/**
 * Opens holdStreams streams at once and counts the ones that fail; tracks how many were open
 * together. Reads each stream incrementally (event count and the last bytes), so this client stays
 * light while it reads 50,000 events a second.
 */
async function holdStreams(target, rss, idleMiB) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  rss?.reset();
  const before = rss?.now();
  let open = 0;
  let maxOpen = 0;
  const failures = {};
  const started = Date.now();
  const one = async () => {
    const result = await new Promise((resolve) => {
      const request = http.request(
        `${target.url}/v1/chat/completions`,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(holdBody), ...target.headers },
        },
        (response) => {
          let events = 0;
          let tail = ''; // the last bytes seen: shorter than 'data:', so no event is counted twice
          let counted = false;
          response.setEncoding('utf8');
          response.on('data', (chunk) => {
            if (!counted) {
              counted = true;
              if (++open > maxOpen) maxOpen = open;
            }
            const text = tail + chunk;
            for (let at = text.indexOf('data:'); at >= 0; at = text.indexOf('data:', at + 5)) events++;
            tail = text.slice(-32);
          });
          let settled = false;
          const done = (error) => {
            if (settled) return;
            settled = true;
            if (counted) open--;
            resolve({ status: response.statusCode, events, done: /data: \[DONE\]\s*$/.test(tail), error });
          };
          response.on('end', () => done());
          response.on('error', done);
          response.on('close', () => done(response.complete ? undefined : new Error('closed early')));
        },
      );
      request.setTimeout(60_000, () => request.destroy(new Error('timeout')));
      request.on('error', (error) => resolve({ status: 0, events: 0, done: false, error }));
      request.end(holdBody);
    });
    const failure = result.error
      ? `error ${result.error.code ?? result.error.message}`
      : result.status !== 200
        ? `status ${result.status}`
        : !result.done
          ? 'no [DONE]'
          : result.events - 1 < config.holdChunks
            ? `only ${result.events - 1} events`
            : undefined;
    if (failure) failures[failure] = (failures[failure] ?? 0) + 1;
  };
  await Promise.all(Array.from({ length: config.holdStreams }, one));
  agent.destroy();
  const errors = Object.values(failures).reduce((sum, count) => sum + count, 0);
  const peak = rss?.phasePeak();
  return {
    streams: config.holdStreams,
    errors,
    failures,
    maxOpenTogether: maxOpen,
    seconds: round3((Date.now() - started) / 1000),
    rssBeforeMiB: before,
    rssPeakMiB: peak,
    /** From the idle process (after setup, before any load) to the peak during the streams. */
    rssGrowthMiB: rss ? round3(peak - idleMiB) : undefined,
    /** From just before the streams to their peak: what the streams alone cost. */
    rssStreamsGrowthMiB: rss ? round3(peak - before) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Targets.

async function startMock() {
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
async function api(gatewayUrl, session, method, route, body) {
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

/** Starts our gateway all-in-one in a temp DATA_DIR and provisions a channel to the mock and a token. */
async function startGateway(mockUrl, dataDir) {
  const entry = path.join(root, 'services/gateway/dist/main.js');
  if (!fs.existsSync(entry)) throw new Error('services/gateway/dist/main.js is missing: compile first (npx tsc -b)');
  const port = await freePort();
  const password = 'bench-root-pw-1';
  const childEnv = {
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    INITIAL_ROOT_PASSWORD: password,
    GLOBAL_API_RATE_LIMIT: '0',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
  // All-in-one on SQLite with in-process bus, jobs and counters: no service or server URLs.
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'IDENTITY_URL', 'BILLING_URL', 'CHANNELS_URL', 'RELAY_URL', 'NOTIFIER_URL', 'NAMESPACE'])
    delete childEnv[name];
  const profile = config.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${config.profileDir}`] : [];
  const child = startChild('gateway', [...profile, entry], { env: childEnv, cpu: CPU_SUT });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, child);

  const target = { name: 'gateway', label: 'our gateway (all-in-one)', url, child, headers: {}, notes: [] };
  const { data: user, response } = await api(url, undefined, 'POST', '/api/user/login', { username: 'root', password });
  const cookie = (response.headers.getSetCookie?.() ?? []).map((value) => value.split(';')[0]).find((value) => value.startsWith('session='));
  if (!cookie) throw new Error('login gave no session cookie');
  const session = { cookie, userId: user.id };
  await api(url, session, 'PUT', '/api/option/', { key: 'AllowPrivateNetworkUpstreams', value: 'true' });
  await api(url, session, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 1, [STREAM_MODEL]: 1, [HOLD_MODEL]: 1 }) });
  const { data: tokens } = await api(url, session, 'POST', '/api/token/', { name: 'bench', remain_quota: 0, unlimited_quota: true });
  const key = (Array.isArray(tokens) ? tokens[0] : tokens)?.key;
  if (!key) throw new Error('token creation returned no key');
  target.headers = { authorization: `Bearer ${key.startsWith('sk-') ? key : `sk-${key}`}` };
  try {
    await api(url, session, 'POST', '/api/channel/', {
      type: 1,
      name: 'mock',
      key: 'mock-key',
      base_url: mockUrl,
      models: `${MODEL},${STREAM_MODEL},${HOLD_MODEL}`,
      group: 'default',
      allow_private_network: true,
    });
  } catch (error) {
    target.notReady = `channel creation failed (${error.message})`;
  }
  return target;
}

async function startPortkey(mockUrl) {
  const port = await freePort();
  const entry = path.join(root, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!fs.existsSync(entry)) throw new Error('@portkey-ai/gateway is not installed (npm install)');
  // The preload works around Portkey's streaming failure on current @hono/node-server (see the file).
  const fix = path.join(root, 'tools/bench/portkey-stream-fix.mjs');
  const child = startChild('portkey', ['--import', pathToFileURL(fix).href, entry, `--port=${port}`, '--headless'], {
    env: { ...env, NODE_ENV: 'production', TRUSTED_CUSTOM_HOSTS: '127.0.0.1' },
    cpu: CPU_SUT,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, child);
  return {
    name: 'portkey',
    label: 'Portkey gateway 1.15.2',
    url,
    child,
    headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${mockUrl}/v1`, authorization: 'Bearer mock' },
    notes: [
      'streamed responses go through `tools/bench/portkey-stream-fix.mjs` (Portkey issue #1389: without it every stream fails with 500 on the installed @hono/node-server); its stream handler waits a fixed 25 ms (`setTimeout(25)` in its code) before forwarding the first chunk of every stream, which shows in its time to first token.',
    ],
  };
}

/** One chat and one stream must work before we measure; otherwise the target is reported as not ready. */
async function preflight(target) {
  if (target.notReady) return;
  const agent = new http.Agent({ keepAlive: false });
  const chat = await send(target, agent, chatBody, true);
  if (chat.error || chat.status !== 200 || !chat.text.includes('"choices"')) {
    target.notReady = `POST /v1/chat/completions answered ${chat.error ? chat.error.message : `HTTP ${chat.status}`}: ${chat.text.slice(0, 160)}`;
    return;
  }
  const stream = await send(target, agent, streamBody, true);
  const failure = checkStream(stream);
  if (failure) target.notReady = `streaming chat failed (${failure}): ${stream.text.slice(0, 160)}`;
}

async function benchTarget(target, rss, idleMiB) {
  log(`${target.name}: max RPS (${config.rpsSeconds} s, ${config.rpsConnections} connections)`);
  const rps = await measureRps(target, config.rpsSeconds);
  log(`${target.name}: ${rps.rps} req/s; latency at concurrency 1 and 32`);
  const latency1 = await measureLatency(target, 1, config.latencySeconds);
  const latency32 = await measureLatency(target, 32, config.latencySeconds);
  log(`${target.name}: sustainable rate (p99 under ${config.sustainP99Ms} ms, concurrency ${config.sustainSteps.join(', ')})`);
  const sustainable = await measureSustainable(target);
  log(`${target.name}: time to first token (${config.ttftStreams} streams)`);
  const ttft = await measureTtft(target);
  log(`${target.name}: ${config.holdStreams} concurrent streams`);
  const hold = await holdStreams(target, rss, idleMiB);
  return { rps, sustainable, latency1, latency32, ttft, hold };
}

// ---------------------------------------------------------------------------------------------
// Report.

const fmt = (value, digits = 3) => (value === null || value === undefined || Number.isNaN(value) ? '–' : String(Number(value.toFixed(digits))));
const signed = (value, digits = 3) =>
  value === null || value === undefined || Number.isNaN(value) ? '–' : `${value >= 0 ? '+' : '−'}${fmt(Math.abs(value), digits)}`;
const added = (value, base) => (value === null || value === undefined || base === null || base === undefined ? null : value - base);

function table(results) {
  const direct = results.direct?.figures;
  const columns = ['direct', 'gateway', 'portkey'].filter((name) => results[name]);
  /** A cell of one column: `pick(figures, result)` when it was measured. */
  const cell = (name, pick) => (results[name].figures ? pick(results[name].figures, results[name]) : 'not measured');
  /** p50 / p99 of a latency figure: absolute for direct (the base), added for the others. */
  const pair = (name, key) =>
    name === 'direct'
      ? cell(name, (f) => `${fmt(f[key].p50)} / ${fmt(f[key].p99)} (base)`)
      : cell(name, (f) => `${signed(added(f[key].p50, direct?.[key].p50))} / ${signed(added(f[key].p99, direct?.[key].p99))}`);
  const rows = [
    [`max requests/s, small chat (autocannon, ${config.rpsConnections} connections)`, (name) => cell(name, (f) => fmt(f.rps.rps, 0))],
    [
      `highest requests/s with p99 under ${config.sustainP99Ms} ms and no failures (at concurrency)`,
      (name) => cell(name, (f) => (f.sustainable.concurrency === null ? 'none' : `${f.sustainable.rps} (${f.sustainable.concurrency})`)),
    ],
    ['added latency p50 / p99 at concurrency 1 (ms)', (name) => pair(name, 'latency1')],
    ['added latency p50 / p99 at concurrency 32 (ms)', (name) => pair(name, 'latency32')],
    ['added time to first token p50 / p99 (ms)', (name) => pair(name, 'ttft')],
    [`${config.holdStreams} concurrent streams: errors (most open together)`, (name) => cell(name, (f) => `${f.hold.errors} (${f.hold.maxOpenTogether})`)],
    [
      'RSS idle → peak → at the end (MiB)',
      (name) => (name === 'direct' ? '–' : cell(name, (f, r) => `${fmt(r.rss.idleMiB, 1)} → ${fmt(r.rss.peakMiB, 1)} → ${fmt(r.rss.afterMiB, 1)}`)),
    ],
    [
      `RSS growth during the ${config.holdStreams} streams: from just before them / from idle (MiB)`,
      (name) => (name === 'direct' ? '–' : cell(name, (f) => `${signed(f.hold.rssStreamsGrowthMiB, 1)} / ${signed(f.hold.rssGrowthMiB, 1)}`)),
    ],
  ];
  const lines = [`| metric | ${columns.map((name) => results[name].label).join(' | ')} |`, `|---|${columns.map(() => '---').join('|')}|`];
  for (const [label, pick] of rows) lines.push(`| ${label} | ${columns.map(pick).join(' | ')} |`);
  return lines.join('\n');
}

function targetsCheck(results) {
  const gateway = results.gateway?.figures;
  const direct = results.direct?.figures;
  if (!gateway || !direct) return [];
  const portkey = results.portkey?.figures;
  const check = (ok, text) => `- ${ok ? 'met' : 'NOT met'}: ${text}`;
  const lines = [];
  if (portkey)
    lines.push(
      check(
        gateway.rps.rps >= 3 * portkey.rps.rps,
        `RPS at least 3x Portkey's (${gateway.rps.rps} vs ${portkey.rps.rps}: ${fmt(gateway.rps.rps / portkey.rps.rps, 2)}x)`,
      ),
    );
  lines.push(
    check(
      added(gateway.latency1.p99, direct.latency1.p99) <= 1,
      `added p99 at concurrency 1 at most 1 ms (${signed(added(gateway.latency1.p99, direct.latency1.p99))} ms)`,
    ),
  );
  lines.push(
    check(added(gateway.ttft.p99, direct.ttft.p99) <= 2, `added time-to-first-token p99 at most 2 ms (${signed(added(gateway.ttft.p99, direct.ttft.p99))} ms)`),
  );
  const { hold } = gateway;
  lines.push(
    check(
      hold.errors === 0 && hold.rssStreamsGrowthMiB < 200 && hold.maxOpenTogether === hold.streams,
      `${hold.streams} concurrent streams held with zero errors and < 200 MB RSS growth (${hold.errors} errors, ${signed(hold.rssStreamsGrowthMiB, 1)} MiB during the streams, ${signed(hold.rssGrowthMiB, 1)} MiB from idle; at most ${hold.maxOpenTogether} open together)`,
    ),
  );
  return lines;
}

/** Failed requests during a target's measurements (they are left out of the latency figures). */
function failureNotes(result) {
  const f = result.figures;
  if (!f) return [];
  const parts = [];
  if (f.rps.non2xx || f.rps.errors || f.rps.timeouts)
    parts.push(`max RPS run: ${f.rps.non2xx} non-2xx, ${f.rps.errors} errors, ${f.rps.timeouts} timeouts of ${f.rps.total}`);
  for (const key of ['latency1', 'latency32']) if (f[key].errors) parts.push(`latency at ${f[key].concurrency}: ${f[key].errors} failed`);
  if (Object.keys(f.ttft.failures).length) parts.push(`time to first token: ${JSON.stringify(f.ttft.failures)}`);
  if (f.hold.errors) parts.push(`concurrent streams: ${JSON.stringify(f.hold.failures)}`);
  return parts.length ? [`- ${result.label}: failed requests — ${parts.join('; ')}`] : [];
}

/** One line, at most 400 characters, safe inside a markdown list. */
const brief = (text) => {
  const line = String(text).replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
  return line.length > 400 ? `${line.slice(0, 400)}…` : line;
};

function markdown(report) {
  const { machine: m, results } = report;
  const notes = Object.values(results).flatMap((result) => [
    ...(result.notReady ? [`- **${result.label}: not measured.** ${brief(result.notReady)}`] : []),
    ...(result.notes ?? []).map((note) => `- ${result.label}: ${note}`),
    ...failureNotes(result),
  ]);
  const checks = targetsCheck(results);
  return [
    '# Benchmarks',
    '',
    'Produced by `npm run bench` (`tools/bench/run.mjs`); the raw figures are in `tools/bench/results/latest.json`.',
    'One run, one machine, the same mock upstream (`tools/mock-upstream`) on loopback and the same load drivers for every column.',
    'These are regression-tracking figures for this box, not capacity claims.',
    '',
    `Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.os}; ${m.pinned}. Run ${m.date}, ${report.seconds} s; load average ${m.loadavg.join(' ')} at the start.`,
    `Other processes took ${m.otherCpuShare === null ? 'an unknown share' : `${fmt(m.otherCpuShare * 100, 1)}%`} of the machine's CPU time during the run.`,
    ...(m.otherCpuShare > 0.05
      ? ['**The machine was not quiet**: other work shared the CPUs, so latencies are noisier and throughputs lower than on an idle box.']
      : []),
    '',
    table(results),
    '',
    ...(notes.length ? ['Notes:', '', ...notes, ''] : []),
    ...(checks.length ? ['Issue targets (benchmark figures, not test assertions):', '', ...checks, ''] : []),
    'How each figure is taken:',
    '',
    `- **max requests/s**: autocannon, ${config.rpsConnections} connections, ${config.rpsSeconds} s after a 2 s warm-up, \`POST /v1/chat/completions\` with a one-message chat (\`${MODEL}\`, 4 chunks of answer, no delay).`,
    `- **highest requests/s with p99 under ${config.sustainP99Ms} ms**: the figure the neutral comparison of AI gateways quotes: the same closed-loop client at concurrency ${config.sustainSteps.join(', ')} (${config.sustainSeconds} s each after 0.5 s warm-up); the highest rate among the steps whose p99 stayed under ${config.sustainP99Ms} ms with no failed request.`,
    `- **added latency**: a closed-loop \`node:http\` client with keep-alive (µs resolution; autocannon rounds to whole ms), ${config.latencySeconds} s after 0.5 s warm-up, at 1 and at 32 requests in flight; the column minus the direct figure. At 32 in flight the loop is saturated, so the figure includes queueing.`,
    `- **time to first token**: ${config.ttftStreams} streams (${config.ttftConcurrency} at a time, staggered), the mock sending ${config.streamChunks} chunks ${config.streamDelayMs} ms apart (\`${STREAM_MODEL}\`); time from the request to the first \`data:\` byte, minus the direct figure.`,
    `- **concurrent streams held**: ${config.holdStreams} streams opened at once, each ${config.holdChunks} chunks ${config.holdDelayMs} ms apart (\`${HOLD_MODEL}\`: ${(config.holdChunks * config.holdDelayMs) / 1000} s, so all can be open before the first ends); an error is a non-200, a socket error or timeout, fewer than ${config.holdChunks} events, or no final \`[DONE]\`. "Most open together" counts streams that had received their first byte and not yet ended.`,
    '- **RSS**: `VmRSS` of the gateway process from `/proc/<pid>/status`, sampled every 100 ms: idle after setup (before any load), the peak over the whole run, at the end of its part; and the growth to the peak during the concurrent streams, from just before them (what the streams cost) and from idle (which includes what the earlier load left behind).',
    '- Our gateway runs all-in-one (SQLite in `DATA_DIR`, in-process bus, jobs and counters) with `LOG_LEVEL=warn`, `GLOBAL_API_RATE_LIMIT=0`, a channel (type 1) to the mock, an unlimited `sk-` token, and auth, billing and usage logging on. Portkey runs `start-server.js --headless` with `x-portkey-provider: openai` and `x-portkey-custom-host: <mock>/v1`.',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main.

async function main() {
  const watchdog = setTimeout(() => {
    log(`watchdog: the run took longer than ${config.watchdogMs / 60_000} min; stopping`);
    stopAll().finally(() => process.exit(1));
  }, config.watchdogMs);
  watchdog.unref();
  if (canPin) {
    try {
      execFileSync('taskset', ['-cp', String(CPU_LOAD), String(process.pid)], { stdio: 'ignore' });
    } catch {
      log('could not pin this process');
    }
  }
  const report = { machine: machine(), config: { ...config, model: MODEL, streamModel: STREAM_MODEL }, results: {} };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-bench-'));
  const started = Date.now();
  const busyAtStart = machineBusySeconds();
  const ownCpuAtStart = process.cpuUsage();
  try {
    const mock = await startMock();
    log(`mock upstream at ${mock.url}`);
    const want = (name) => config.targets.includes(name);
    const direct = { name: 'direct', label: 'direct to the mock', url: mock.url, headers: { authorization: 'Bearer mock' }, notes: [] };
    report.results.direct = { label: direct.label };
    await preflight(direct);
    if (direct.notReady) throw new Error(`the mock itself does not answer: ${direct.notReady}`);
    report.results.direct.figures = await benchTarget(direct);

    if (want('gateway')) {
      let gateway;
      const result = (report.results.gateway = { label: 'our gateway (all-in-one)' });
      try {
        gateway = await startGateway(mock.url, dataDir);
        await preflight(gateway);
      } catch (error) {
        result.notReady = `setup failed: ${error.message}`;
      }
      if (gateway) {
        const rss = rssSampler(gateway.child.pid);
        result.rss = { idleMiB: rss.now() };
        result.notReady ??= gateway.notReady;
        if (result.notReady) {
          log(`gateway NOT READY: ${result.notReady}`);
        } else {
          result.figures = await benchTarget(gateway, rss, result.rss.idleMiB);
          result.rss.peakMiB = rss.peak();
        }
        result.rss.afterMiB = rss.now();
        rss.stop();
        await stopChild(gateway.child);
      }
    }

    if (want('portkey')) {
      let portkey;
      const result = (report.results.portkey = { label: 'Portkey gateway 1.15.2' });
      try {
        portkey = await startPortkey(mock.url);
        result.notes = portkey.notes;
        await preflight(portkey);
      } catch (error) {
        result.notReady = `setup failed: ${error.message}`;
      }
      if (portkey) {
        const rss = rssSampler(portkey.child.pid);
        result.rss = { idleMiB: rss.now() };
        result.notReady ??= portkey.notReady;
        if (result.notReady) {
          log(`portkey NOT READY: ${result.notReady}`);
        } else {
          result.figures = await benchTarget(portkey, rss, result.rss.idleMiB);
          result.rss.peakMiB = rss.peak();
        }
        result.rss.afterMiB = rss.now();
        rss.stop();
        await stopChild(portkey.child);
      }
    }
  } finally {
    await stopAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
  report.seconds = Math.round((Date.now() - started) / 1000);
  const own = process.cpuUsage(ownCpuAtStart);
  const otherCpu = machineBusySeconds() - busyAtStart - childCpuSeconds - (own.user + own.system) / 1e6;
  // Share of the machine's CPU time that went to processes other than the bench and its children.
  report.machine.otherCpuShare = Number.isFinite(otherCpu) ? Math.max(0, Math.round((otherCpu / (report.seconds * cpus)) * 1000) / 1000) : null;

  const text = markdown(report);
  process.stdout.write(`\n${text}\n`);
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(root, 'docs/benchmarks.md'), text);
  fs.mkdirSync(path.join(root, 'tools/bench/results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'tools/bench/results/latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  log(`done in ${report.seconds} s; wrote docs/benchmarks.md and tools/bench/results/latest.json`);
  if (report.results.gateway?.notReady) log(`NOTE: our gateway was not measured: ${report.results.gateway.notReady}`);
}

main().then(
  () => process.exit(0),
  async (error) => {
    log(`failed: ${error.stack ?? error}`);
    await stopAll();
    process.exit(1);
  },
);
