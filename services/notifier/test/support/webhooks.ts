import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase, type Bus, type BusEvent } from '@aigw/platform';
import { waitFor, type Backend, type TestEnvironment } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../../gateway/test/support/gateway';
import { notifierEntities } from '../../src/entities/index';
import { notifierMigrations } from '../../src/migrations/index';

/** One call the receiver got: the raw body (what the signature covers) and the headers. */
export interface ReceivedCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * How the receiver answers a path: `ok` 200; `fail:N` 500 for the first N calls, then 200;
 * `hang` reads the request and never answers (the notifier's timeout must end the call).
 */
type Behaviour = 'ok' | `fail:${number}` | 'hang' | 'redirect';

/** A real HTTP endpoint on loopback that records what it receives. */
export interface Receiver {
  url(path: string): string;
  calls: ReceivedCall[];
  on(path: string): ReceivedCall[];
  close(): Promise<void>;
}

export async function startReceiver(behaviours: Record<string, Behaviour>): Promise<Receiver> {
  const calls: ReceivedCall[] = [];
  const seen = new Map<string, number>();
  const answer = (path: string, response: ServerResponse) => {
    const behaviour = behaviours[path] ?? 'ok';
    const count = (seen.get(path) ?? 0) + 1;
    seen.set(path, count);
    if (behaviour === 'hang') return;
    if (behaviour === 'redirect') return void response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    if (behaviour.startsWith('fail:') && count <= Number(behaviour.slice(5))) {
      return void response.writeHead(500, { 'content-type': 'text/plain' }).end(`receiver down\n(call ${count})`);
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      calls.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      answer(path, response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    calls,
    on: (path) => calls.filter((call) => call.path === path),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A second connection to the notifier's tables, to arrange rows (mail deliveries) or read what was written. */
export function openNotifierDatabase(env: TestEnvironment): Promise<DataSource> {
  return openDatabase({
    url: env.databaseUrl,
    dataDir: env.dataDir,
    schema: env.schema('notifier'),
    entities: notifierEntities,
    migrations: notifierMigrations,
    logger: createSilentLogger(),
  });
}

/** Sets an option as root and waits until the notifier's mirror has it. */
export async function setNotifierOption(gateway: TestGateway, root: Session, key: string, value: unknown): Promise<void> {
  const answer = (await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json();
  if (!answer.success) throw new Error(`option ${key} not set: ${answer.message}`);
  await waitFor(
    async () => {
      const mirrored = (await gateway.call('GET', '/internal/notifier/options', { session: root })).json().data[key];
      return String(mirrored) === String(value);
    },
    5_000,
    `${key} mirrored by the notifier`,
  );
}

/** Collects the events of a subject from now on (a per-instance subscription). */
export async function collectEvents(bus: Bus, subject: string): Promise<BusEvent[]> {
  const events: BusEvent[] = [];
  await bus.subscribe(subject, async (event) => void events.push(event), {});
  return events;
}

/** Fast webhook settings for tests: a short timeout, three calls, a short backoff. */
export const fastWebhooks = { WEBHOOK_TIMEOUT_MS: '600', WEBHOOK_ATTEMPTS: '3', WEBHOOK_BACKOFF_MS: '100' };

export interface WebhookWorld {
  gateway: TestGateway;
  root: Session;
  db: DataSource;
  close(): Promise<void>;
}

/** The all-in-one gateway with fast webhook settings, root signed in, and the notifier's tables. */
export async function startWebhookWorld(backend: Backend, options: { allowPrivate: boolean }): Promise<WebhookWorld> {
  const gateway = await startGateway(backend, fastWebhooks);
  const root = await gateway.login('root', ROOT_PASSWORD);
  if (options.allowPrivate) await setNotifierOption(gateway, root, 'AllowPrivateNetworkUpstreams', true);
  const db = await openNotifierDatabase(gateway.env);
  return {
    gateway,
    root,
    db,
    async close() {
      await db.destroy();
      await gateway.close();
    },
  };
}
