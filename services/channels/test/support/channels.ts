import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase, type Bus, type BusEvent, type BusRequestError } from '@aigw/platform';
import { waitFor, type TestEnvironment } from '@aigw/platform/testing';
import type { MockUpstream } from '../../../../tools/mock-upstream/server.mjs';
import { channelsEntities } from '../../src/entities/index';
import { channelsMigrations } from '../../src/migrations/index';
import type { Backend } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../../gateway/test/support/gateway';

/**
 * The fields of a channel whose upstream is the mock: its loopback URL, which the relay reaches
 * only for a channel with its own private-network flag (rule R2). Channel tests, model lists and
 * balances then run for real: channels asks the relay mounted in the same gateway over the bus
 * (`relay.channel.operate`), and the relay calls the mock.
 */
export const onMock = (mock: MockUpstream, overrides: Record<string, unknown> = {}) => ({
  base_url: mock.url,
  allow_private_network: true,
  models: 'mock-gpt',
  ...overrides,
});

/**
 * Runs `run` while `relay.channel.operate` fails with `error` (every other request goes to the
 * bus as before), then puts the bus back.
 *
 * Not the real path, for what the real path cannot produce: the relay's responder is registered by
 * its plugin in the all-in-one gateway and stays on the bus while the gateway runs, so "nobody
 * answers" (`no-responder`) cannot happen, and channels waits 60 s for a reply, so "no answer in
 * time" (`timeout`) cannot happen in a test either; and the responder turns every upstream failure
 * into an answer (`ok: false`) and could throw only on a request that breaks the subject's schema,
 * which channels checks before sending (`requestTyped`), so a `remote-error` (a relay of another
 * version, say) cannot be produced either. Only the outcome of that one request is replaced, by an
 * error of the kind the bus itself raises, and only while `run` runs.
 */
export async function withRelayFailing<T>(bus: Bus, error: BusRequestError, run: () => Promise<T>): Promise<T> {
  const request = Object.getOwnPropertyDescriptor(bus, 'request');
  const forward = bus.request.bind(bus);
  bus.request = (subject, data, options) => (subject === 'relay.channel.operate' ? Promise.reject(error) : forward(subject, data, options));
  try {
    return await run();
  } finally {
    if (request) Object.defineProperty(bus, 'request', request);
    else delete (bus as Partial<Bus>).request;
  }
}

/** A second connection to channels' own tables in a test environment, to arrange rows or check what was written. */
export function openChannelsDatabase(env: TestEnvironment): Promise<DataSource> {
  return openDatabase({
    url: env.databaseUrl,
    dataDir: env.dataDir,
    schema: env.schema('channels'),
    entities: channelsEntities,
    migrations: channelsMigrations,
    logger: createSilentLogger(),
  });
}

/** Collects the events of a subject from now on (a per-instance subscription, no durable). */
export async function collectEvents(bus: Bus, subject: string): Promise<BusEvent[]> {
  const events: BusEvent[] = [];
  await bus.subscribe(subject, async (event) => void events.push(event), {});
  return events;
}

export const channelBody = (overrides: Record<string, unknown> = {}) => ({
  type: 1,
  name: 'primary',
  group: 'default',
  models: 'gpt-4o,gpt-4o-mini',
  key: 'sk-test-key-0001',
  ...overrides,
});

/** Creates channels as `session` and returns their ids. */
export async function createChannels(gateway: TestGateway, session: Session, overrides: Record<string, unknown> = {}): Promise<number[]> {
  const answer = (await gateway.call('POST', '/api/channel/', { session, body: channelBody(overrides) })).json();
  if (!answer.success) throw new Error(`channel not created: ${answer.message}`);
  return answer.data.ids;
}

/** Sets an option as root and waits until channels' mirror has it. */
export async function setOption(gateway: TestGateway, root: Session, key: string, value: unknown): Promise<void> {
  const answer = (await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json();
  if (!answer.success) throw new Error(`option ${key} not set: ${answer.message}`);
  await waitFor(
    async () => {
      const mirrored = (await gateway.call('GET', '/internal/channels/options', { session: root })).json().data[key];
      return JSON.stringify(mirrored) === JSON.stringify(value) || String(mirrored) === String(value);
    },
    5_000,
    `${key} mirrored`,
  );
}

/** Registers and signs in an ordinary user. */
export async function ordinaryUser(gateway: TestGateway, name: string): Promise<Session> {
  await gateway.register(name, `${name}-password`);
  return gateway.login(name, `${name}-password`);
}

/** What every channels test file starts with: the gateway (the real relay included), root, channels' tables and the channel events seen. */
export interface ChannelsWorld {
  gateway: TestGateway;
  root: Session;
  db: DataSource;
  updated: BusEvent[];
  deleted: BusEvent[];
  close(): Promise<void>;
}

export async function startChannelsWorld(backend: Backend): Promise<ChannelsWorld> {
  const gateway = await startGateway(backend);
  const root = await gateway.login('root', ROOT_PASSWORD);
  const db = await openChannelsDatabase(gateway.env);
  const updated = await collectEvents(gateway.env.infra.bus, 'channels.channel.updated');
  const deleted = await collectEvents(gateway.env.infra.bus, 'channels.channel.deleted');
  return {
    gateway,
    root,
    db,
    updated,
    deleted,
    async close() {
      await db.destroy();
      await gateway.close();
    },
  };
}
