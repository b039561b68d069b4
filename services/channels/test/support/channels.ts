import type { DataSource } from 'typeorm';
import { requestSchemas, type RequestPayload, type ResponsePayload } from '@aigw/contracts';
import { createSilentLogger, openDatabase, type Bus, type BusEvent } from '@aigw/platform';
import { waitFor, type TestEnvironment } from '@aigw/platform/testing';
import { channelsEntities } from '../../src/entities/index';
import { channelsMigrations } from '../../src/migrations/index';
import type { Backend } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../../gateway/test/support/gateway';

export type OperateRequest = RequestPayload<'relay.channel.operate'>;
export type OperateAnswer = ResponsePayload<'relay.channel.operate'>;

export interface FakeRelay {
  /** Every request channels sent, validated against the contract. */
  calls: OperateRequest[];
  /** How the fake answers; tests replace it. */
  answer: (request: OperateRequest) => Partial<OperateAnswer> | Promise<Partial<OperateAnswer>>;
}

export const fakeAnswerDefaults: OperateAnswer = { ok: true, message: '', status_code: 200, response_time_ms: 120, models: [], balance: null };

/**
 * Stands in for the relay on `relay.channel.operate`, so these tests need no upstream. The relay
 * mounted in the same gateway answers that subject too, and the bus shares a subject's requests
 * between its responders, so a second responder would get only some of them: instead, requests
 * on this one subject are routed to the fake (through a JSON round trip, as on the wire) and
 * every other request goes to the bus as before.
 */
export function installFakeRelay(bus: Bus): FakeRelay {
  const fake: FakeRelay = { calls: [], answer: () => ({}) };
  const forward = bus.request.bind(bus);
  bus.request = (async (subject: string, data: unknown, options?: { timeoutMs?: number }) => {
    if (subject !== 'relay.channel.operate') return forward(subject, data, options);
    const request = requestSchemas['relay.channel.operate'].request.parse(JSON.parse(JSON.stringify(data)));
    fake.calls.push(request);
    return JSON.parse(JSON.stringify({ ...fakeAnswerDefaults, ...(await fake.answer(request)) }));
  }) as Bus['request'];
  return fake;
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

/** What every channels test file starts with: the gateway, root, the fake relay, channels' tables and the channel events seen. */
export interface ChannelsWorld {
  gateway: TestGateway;
  root: Session;
  relay: FakeRelay;
  db: DataSource;
  updated: BusEvent[];
  deleted: BusEvent[];
  close(): Promise<void>;
}

export async function startChannelsWorld(backend: Backend): Promise<ChannelsWorld> {
  const gateway = await startGateway(backend);
  const relay = installFakeRelay(gateway.env.infra.bus);
  const root = await gateway.login('root', ROOT_PASSWORD);
  const db = await openChannelsDatabase(gateway.env);
  const updated = await collectEvents(gateway.env.infra.bus, 'channels.channel.updated');
  const deleted = await collectEvents(gateway.env.infra.bus, 'channels.channel.deleted');
  return {
    gateway,
    root,
    relay,
    db,
    updated,
    deleted,
    async close() {
      await db.destroy();
      await gateway.close();
    },
  };
}
