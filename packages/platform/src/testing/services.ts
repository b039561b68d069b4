import net from 'node:net';

/**
 * Where integration tests find PostgreSQL, Redis and NATS. Taken from DATABASE_URL, REDIS_URL and
 * NATS_URL, defaulting to the standard local ports. When a server is unreachable and a Docker
 * engine is present, testcontainers starts one; otherwise the test fails saying how to provide it.
 */
export interface TestServices {
  databaseUrl: string;
  redisUrl: string;
  natsUrl: string;
}

const defaults = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/test',
  redisUrl: 'redis://127.0.0.1:6379',
  natsUrl: 'nats://127.0.0.1:4222',
};

function reachable(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || '127.0.0.1', port: Number(parsed.port) || defaultPort };
}

async function dockerPresent(): Promise<boolean> {
  const socketPath = process.env.DOCKER_HOST?.startsWith('unix://') ? process.env.DOCKER_HOST.slice(7) : '/var/run/docker.sock';
  return new Promise((resolve) => {
    const socket = net.connect({ path: socketPath });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(Boolean(process.env.DOCKER_HOST?.startsWith('tcp://'))));
  });
}

interface Spec {
  name: keyof TestServices;
  envName: string;
  defaultPort: number;
  image: string;
  containerPort: number;
  command?: string[];
  env?: Record<string, string>;
  toUrl: (host: string, port: number) => string;
}

const specs: Spec[] = [
  {
    name: 'databaseUrl',
    envName: 'DATABASE_URL',
    defaultPort: 5432,
    image: 'postgres:15-alpine',
    containerPort: 5432,
    env: { POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'test' },
    toUrl: (host, port) => `postgres://postgres@${host}:${port}/test`,
  },
  { name: 'redisUrl', envName: 'REDIS_URL', defaultPort: 6379, image: 'redis:7-alpine', containerPort: 6379, toUrl: (h, p) => `redis://${h}:${p}` },
  {
    name: 'natsUrl',
    envName: 'NATS_URL',
    defaultPort: 4222,
    image: 'nats:2.10-alpine',
    containerPort: 4222,
    command: ['-js'],
    toUrl: (h, p) => `nats://${h}:${p}`,
  },
];

const containers: Array<{ stop(): Promise<unknown> }> = [];
let resolved: Promise<TestServices> | undefined;

async function resolveOne(spec: Spec): Promise<string> {
  const url = process.env[spec.envName] || defaults[spec.name];
  const { host, port } = hostPort(url, spec.defaultPort);
  if (await reachable(host, port)) return url;
  if (await dockerPresent()) {
    const { GenericContainer } = await import('testcontainers');
    let container = new GenericContainer(spec.image).withExposedPorts(spec.containerPort);
    if (spec.command) container = container.withCommand(spec.command);
    if (spec.env) container = container.withEnvironment(spec.env);
    const started = await container.start();
    containers.push(started);
    return spec.toUrl(started.getHost(), started.getMappedPort(spec.containerPort));
  }
  throw new Error(
    `${spec.envName}: nothing answers at ${host}:${port} and no Docker engine is available for testcontainers. ` +
      `Start the server locally (see README "Tests") or set ${spec.envName} to a reachable one.`,
  );
}

/** Resolves (once per test process) the URLs of the real servers the integration tests use. */
export function testServices(): Promise<TestServices> {
  resolved ??= (async () => {
    const [databaseUrl, redisUrl, natsUrl] = await Promise.all(specs.map(resolveOne));
    return { databaseUrl, redisUrl, natsUrl } as TestServices;
  })();
  return resolved;
}

/** A short random name for per-test-file isolation (schemas, key prefixes, stream names). */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}
