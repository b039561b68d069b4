import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { createInfrastructure, type Infrastructure } from '../infrastructure.js';
import { createSilentLogger, type Logger } from '../logger.js';
import { testServices, uniqueName } from './services.js';

/** Which adapters a test runs on: everything in-process (SQLite), or the real servers. */
export type Backend = 'in-process' | 'real';
export const backends: Backend[] = ['in-process', 'real'];

/**
 * Ports and database settings for one test file, isolated by a unique namespace: its own NATS
 * streams, Redis keys, PostgreSQL schemas (or SQLite folder). `cleanup` removes all of it.
 */
export interface TestEnvironment {
  backend: Backend;
  infra: Infrastructure;
  namespace: string;
  /** PostgreSQL URL on the real backend; undefined means SQLite under dataDir. */
  databaseUrl?: string;
  dataDir: string;
  /** The database schema a service should use in this test. */
  schema(service: string): string;
  /** The env a separately started process needs to join the same isolated world. */
  processEnv(): Record<string, string>;
  cleanup(): Promise<void>;
}

export async function createTestEnvironment(backend: Backend, logger: Logger = createSilentLogger()): Promise<TestEnvironment> {
  const namespace = uniqueName('t').toLowerCase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-test-'));
  const services = backend === 'real' ? await testServices() : undefined;
  const infra = await createInfrastructure({ NAMESPACE: namespace, NATS_URL: services?.natsUrl, REDIS_URL: services?.redisUrl }, logger);
  return {
    backend,
    infra,
    namespace,
    databaseUrl: services?.databaseUrl,
    dataDir,
    schema: (service) => `${namespace}_${service}`,
    processEnv: () => ({
      NAMESPACE: namespace,
      DATA_DIR: dataDir,
      ...(services ? { DATABASE_URL: services.databaseUrl, NATS_URL: services.natsUrl, REDIS_URL: services.redisUrl } : {}),
    }),
    async cleanup() {
      await infra.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (services) await removeNamespace(services, namespace);
    },
  };
}

/** Deletes the Redis keys matching any of `patterns` (a test file's own prefix, say). */
export async function deleteRedisKeys(redisUrl: string, ...patterns: string[]): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    await redis.quit();
  }
}

/** Deletes every stream, key and schema a namespace left on the real servers. */
export async function removeNamespace(services: { natsUrl: string; redisUrl: string; databaseUrl: string }, namespace: string): Promise<void> {
  const nc = await connect({ servers: services.natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    const prefix = `${namespace.toUpperCase()}_`;
    for await (const name of jsm.streams.names()) if (name.startsWith(prefix)) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }

  await deleteRedisKeys(services.redisUrl, `aigw:${namespace}:*`, `aigw-${namespace}:*`);

  const db = new DataSource({ type: 'postgres', url: services.databaseUrl });
  await db.initialize();
  try {
    const schemas: Array<{ nspname: string }> = await db.query('SELECT nspname FROM pg_namespace WHERE nspname LIKE $1', [`${namespace}\\_%`]);
    for (const { nspname } of schemas) await db.query(`DROP SCHEMA "${nspname}" CASCADE`);
  } finally {
    await db.destroy();
  }
}

/** Polls until `condition` holds; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
