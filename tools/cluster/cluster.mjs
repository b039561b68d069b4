// The distributed topology as child processes: each service from its compiled dist/main.js on
// its own port, then the gateway proxying to them. Used by launch.mjs (npm run start:cluster)
// and by the end-to-end tests (services/gateway/test/cluster.test.ts, cluster-faults.test.ts and
// cluster-tasks.test.ts).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Started first, in parallel; the gateway starts once every one answers /healthz. */
export const serviceNames = ['identity', 'billing', 'channels', 'relay', 'notifier'];
export const defaultPorts = { gateway: 3000, identity: 3001, billing: 3002, channels: 3003, relay: 3004, notifier: 3005 };

/**
 * V8 flags every service process runs with, as `npm start` and the Dockerfile's NODE_OPTIONS
 * give them: young-generation semi-spaces of 32 MB, so a busy process scavenges half as often
 * (docs/architecture.md section 5).
 */
export const nodeFlags = ['--max-semi-space-size=32'];

const envDefaults = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

const defaultLog = (name, line, stream = 'stdout') => process[stream].write(`[${name}] ${line}\n`);

/** Path of a service's compiled entry; throws when the build is missing. */
export function entryOf(name) {
  const file = path.join(root, 'services', name, 'dist', 'main.js');
  if (!fs.existsSync(file)) throw new Error(`${path.relative(root, file)} does not exist: compile first (npx tsc -b)`);
  return file;
}

/**
 * Starts the services, waits for each /healthz, then starts the gateway.
 * - env: the children's environment (default process.env); DATABASE_URL, NATS_URL and REDIS_URL
 *   default to the local servers, INTERNAL_SECRET to a random one for this cluster,
 *   TOKEN_KEY_SECRET, CHANNEL_KEY_SECRET, NOTIFIER_KEY_SECRET and TWO_FACTOR_KEY_SECRET to ones kept in DATA_DIR/secrets (token and channel keys stay
 *   readable across restarts). With `<NAME>_NATS_PASSWORD` set (RELAY_NATS_PASSWORD, ...), that
 *   process connects to NATS as its own user (NATS_USER=<name>); no child gets another's password.
 * - ports: { gateway, identity, billing, channels, relay, notifier }, defaults 3000-3005.
 * - log(name, line, stream): every child output line; default prints `[name] line`.
 * - onCrash({ name, code, signal }): after startup, a child exited on its own; called once the
 *   others are stopped.
 * - readyTimeoutMs / stopTimeoutMs: how long to wait for /healthz, and for an exit before SIGKILL.
 * Resolves to { gatewayUrl, servicesUrls, internalSecret, stop(), kill(name), restart(name),
 * startReplica(name, port, extraEnv) }; on a startup failure it stops whatever it started and
 * rejects. startReplica runs one more instance of a service on another port (its own
 * INSTANCE_NAME, `<name>@<port>` unless extraEnv sets one; its lines logged as `<name>@<port>`)
 * and resolves, once it answers /healthz, to { name, port, url, pid, kill(signal), stop() };
 * stop() stops replicas with the services. The gateway keeps proxying to the first instance.
 */
export async function startCluster(options = {}) {
  const { log = defaultLog, onCrash, readyTimeoutMs = 60_000, stopTimeoutMs = 15_000 } = options;
  const ports = { ...defaultPorts, ...options.ports };
  const env = { ...envDefaults, ...definedOnly(options.env ?? process.env) };
  env.INTERNAL_SECRET ||= crypto.randomBytes(32).toString('base64url');
  // Token keys are encrypted with this: it must survive restarts, so keep one under DATA_DIR.
  env.TOKEN_KEY_SECRET ||= persistentSecret(path.join(env.DATA_DIR || './data', 'secrets', 'cluster-token-key'));
  // Channel keys likewise.
  env.CHANNEL_KEY_SECRET ||= persistentSecret(path.join(env.DATA_DIR || './data', 'secrets', 'cluster-channel-key'));
  // Webhook signing secrets likewise.
  env.NOTIFIER_KEY_SECRET ||= persistentSecret(path.join(env.DATA_DIR || './data', 'secrets', 'cluster-notifier-key'));
  // TOTP secrets of users' second factors likewise.
  env.TWO_FACTOR_KEY_SECRET ||= persistentSecret(path.join(env.DATA_DIR || './data', 'secrets', 'cluster-two-factor-key'));
  const entries = Object.fromEntries([...serviceNames, 'gateway'].map((name) => [name, entryOf(name)]));
  const servicesUrls = Object.fromEntries(serviceNames.map((name) => [name, `http://127.0.0.1:${ports[name]}`]));

  const children = new Map();
  /** Children this launcher killed on purpose (fault tests): their exit is not a crash. */
  const killed = new Set();
  const extraEnvs = new Map();
  let stopping = false;
  let ready = false;
  let crashed;
  const killAll = () => {
    for (const child of children.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.once('exit', killAll); // never leave children behind when this process ends

  /** Children by label: a process name, or `<service>@<port>` for a replica. */
  const start = (name, extraEnv, label = name, port = ports[name]) => {
    // Own process group: a terminal's Ctrl-C reaches only the launcher, which stops them in order.
    const child = spawn(process.execPath, [...nodeFlags, entries[name]], {
      cwd: root,
      env: { ...natsUserEnv(env, name), ...extraEnv, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    for (const stream of ['stdout', 'stderr']) {
      readline.createInterface({ input: child[stream], crlfDelay: Infinity }).on('line', (line) => log(label, line, stream));
    }
    child.once('error', (error) => log('cluster', `${label}: ${error.message}`, 'stderr'));
    void child.exited.then(({ code, signal }) => {
      // A replica that fails to start only fails its startReplica.
      if (stopping || killed.has(child) || child.starting) return;
      crashed ??= { name: label, code, signal };
      log('cluster', `${label} exited unexpectedly (${signal ?? `code ${code}`}); stopping the others`, 'stderr');
      void stop().then(() => ready && onCrash?.(crashed)); // during startup, startCluster rejects instead
    });
    children.set(label, child);
    extraEnvs.set(label, extraEnv);
    return child;
  };

  const stopOne = async (label) => {
    const child = children.get(label);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
    child.kill('SIGTERM');
    const { code, signal } = await child.exited;
    clearTimeout(timer);
    if (code || signal === 'SIGKILL') log('cluster', `${label} did not stop cleanly (${signal ?? `code ${code}`})`, 'stderr');
  };

  let stopped;
  const stop = () => {
    stopping = true;
    stopped ??= (async () => {
      await stopOne('gateway');
      // The services and their replicas.
      await Promise.all([...children.keys()].filter((label) => label !== 'gateway').map(stopOne));
      process.removeListener('exit', killAll);
    })();
    return stopped;
  };

  const waitHealthy = async (label, url) => {
    const child = children.get(label);
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (crashed) throw new Error(`${crashed.name} exited during startup (${crashed.signal ?? `code ${crashed.code}`})`);
      try {
        const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${label} exited during startup (${child.signalCode ?? `code ${child.exitCode}`})`);
      if (Date.now() > deadline) throw new Error(`${label} did not answer ${url}/healthz within ${readyTimeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /** One more instance of a service (see the doc comment above). */
  const startReplica = async (name, port, extraEnv = {}) => {
    if (stopping) throw new Error('the cluster is stopping');
    if (!serviceNames.includes(name)) throw new Error(`${name} is not a service (${serviceNames.join(', ')})`);
    const label = `${name}@${port}`;
    const running = children.get(label);
    if (running && running.exitCode === null && running.signalCode === null) throw new Error(`${label} is already running`);
    const child = start(name, { ...extraEnvs.get(name), INSTANCE_NAME: label, ...extraEnv }, label, port);
    child.starting = true;
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitHealthy(label, url);
    } catch (error) {
      killed.add(child);
      await stopOne(label);
      throw error;
    }
    child.starting = false;
    return {
      name,
      port,
      url,
      pid: child.pid,
      async kill(signal = 'SIGKILL') {
        if (child.exitCode !== null || child.signalCode !== null) return;
        killed.add(child);
        child.kill(signal);
        await child.exited;
      },
      async stop() {
        killed.add(child);
        await stopOne(label);
      },
    };
  };

  try {
    for (const name of serviceNames) start(name);
    await Promise.all(serviceNames.map((name) => waitHealthy(name, servicesUrls[name])));
    start('gateway', Object.fromEntries(serviceNames.map((name) => [`${name.toUpperCase()}_URL`, servicesUrls[name]])));
    const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
    await waitHealthy('gateway', gatewayUrl);
    ready = true;
    log('cluster', `ready: gateway ${gatewayUrl}, ${serviceNames.map((name) => `${name} :${ports[name]}`).join(', ')}`);
    const urlOf = (name) => (name === 'gateway' ? gatewayUrl : servicesUrls[name]);
    return {
      gatewayUrl,
      servicesUrls,
      internalSecret: env.INTERNAL_SECRET,
      stop,
      async kill(name, signal = 'SIGKILL') {
        const child = children.get(name);
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        killed.add(child);
        child.kill(signal);
        await child.exited;
      },
      async restart(name, extraEnv) {
        const child = children.get(name);
        if (child && child.exitCode === null && child.signalCode === null) throw new Error(`${name} is still running`);
        start(name, { ...extraEnvs.get(name), ...extraEnv });
        await waitHealthy(name, urlOf(name));
      },
      startReplica,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A child's environment with its own NATS user (deploy/nats/authorization.conf) when
 * `<NAME>_NATS_PASSWORD` is set for it, as docker-compose.yml does; no child gets another's password.
 */
function natsUserEnv(env, name) {
  const own = Object.fromEntries(Object.entries(env).filter(([key]) => !/^[A-Z]+_NATS_PASSWORD$/.test(key)));
  const password = env[`${name.toUpperCase()}_NATS_PASSWORD`];
  return password ? { ...own, NATS_USER: name, NATS_PASSWORD: password } : own;
}

function definedOnly(env) {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
}

function persistentSecret(file) {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = crypto.randomBytes(32).toString('base64url');
  fs.writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
