// The bus only services can write to (issue 19, item 5): a nats-server of this file's own runs the
// committed deploy/nats/authorization.conf, and each service connects through the real bus
// adapter as its own user. Every service can do what its events.ts declares; nobody but the relay
// can put a usage record on the bus, and what is refused fails at once with a permissions error.
import { randomBytes } from 'node:crypto';
import { AckPolicy, connect, type NatsConnection } from 'nats';
import { createBus, createSilentLogger, natsInboxPrefix, natsPasswordVariable, type Bus, type ServiceMessaging } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { authorizationFiles, operatorUser, serviceMessaging, serviceUsers, type ServiceUser } from './support/nats-authorization';
import { startThrowawayNats, type ThrowawayNats } from './support/throwaway-nats';

const logger = createSilentLogger();
// A letter then hex: the server reads the variables as config values (see the file's header).
const passwords = Object.fromEntries([...serviceUsers, operatorUser].map((user) => [user, `n${randomBytes(16).toString('hex')}`]));
const declared = serviceMessaging as Record<ServiceUser, ServiceMessaging>;
const publisherOf = (subject: string) => serviceUsers.find((user) => declared[user].publishes.includes(subject as never));
const answererOf = (subject: string) => serviceUsers.find((user) => declared[user].answers.includes(subject as never));
const domainOf = (subject: string) => subject.split('.')[0]!;
const forged = { request_id: 'forged', user_id: 1, quota: -1_000_000 };

let server: ThrowawayNats;
let admin: NatsConnection;
const opened: Array<{ close(): Promise<void> }> = [];

/** A service's bus, as its process opens it (NATS_USER and NATS_PASSWORD). */
async function busOf(user: string, password = passwords[user]): Promise<Bus> {
  const bus = await createBus({ natsUrl: server.url, natsUser: user, natsPassword: password, logger });
  opened.push(bus);
  return bus;
}

/** A plain client with a service's credentials, for what the adapter never does. */
async function clientOf(user: string): Promise<NatsConnection> {
  const connection = await connect({ servers: server.url, user, pass: passwords[user], inboxPrefix: natsInboxPrefix(user), reconnect: false });
  opened.push(connection);
  return connection;
}

/** Resolves with the server's refusal of a subscription; rejects when none comes within 5 s. */
function subscriptionRefusal(connection: NatsConnection, subject: string): Promise<Error> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`subscribing to ${subject} was not refused`)), 5_000);
    connection.subscribe(subject, {
      callback: (error) => {
        if (!error) return;
        clearTimeout(timer);
        resolve(error);
      },
    });
  });
}

beforeAll(async () => {
  const env = Object.fromEntries(Object.entries(passwords).map(([user, password]) => [natsPasswordVariable(user), password]));
  server = await startThrowawayNats(authorizationFiles[0]!, env, { user: operatorUser, password: passwords[operatorUser]! });
  admin = await connect({ servers: server.url, user: operatorUser, pass: passwords[operatorUser] });
});

afterAll(async () => {
  await Promise.allSettled(opened.map((connection) => connection.close()));
  await admin?.close();
  await server?.stop();
});

describe('NATS users per service (deploy/nats/authorization.conf)', () => {
  it('let each service publish what it declares, consume and forward what it reads, and ask and answer its requests', async () => {
    const buses = Object.fromEntries(await Promise.all(serviceUsers.map(async (user) => [user, await busOf(user)] as const))) as Record<ServiceUser, Bus>;
    const received = new Set<string>();
    for (const user of serviceUsers) {
      const { consumes, forwards = [] } = declared[user];
      // The relay and the gateway keep caches: per-instance subscriptions, as their code makes them.
      const durable = user === 'relay' || user === 'gateway' ? undefined : `probe-${user}`;
      for (const subject of consumes) await buses[user].subscribe(subject, async (event) => void received.add(`${user} ${event.subject}`), { durable });
      for (const domain of new Set(forwards.map(domainOf))) {
        await buses[user].subscribe(`${domain}.>`, async (event) => void received.add(`${user} forwards ${event.subject}`), {
          durable: `probe-${user}-webhooks`,
        });
      }
      for (const subject of declared[user].answers) await buses[user].reply(subject, async () => ({ answeredBy: user }));
    }

    for (const user of serviceUsers) {
      for (const subject of declared[user].publishes) await buses[user].publish(subject, { from: user }, { id: `probe-${subject}` });
    }
    for (const user of serviceUsers) {
      for (const subject of declared[user].asks) {
        await expect(buses[user].request(subject, {})).resolves.toEqual({ answeredBy: answererOf(subject) });
      }
    }

    const expected = serviceUsers.flatMap((user) => [
      ...declared[user].consumes.filter(publisherOf).map((subject) => `${user} ${subject}`),
      ...(declared[user].forwards ?? []).filter(publisherOf).map((subject) => `${user} forwards ${subject}`),
    ]);
    await waitFor(() => expected.every((entry) => received.has(entry)), 15_000, 'every consumer receiving its events');
    expect(expected.filter((entry) => !received.has(entry))).toEqual([]);
    // Handled events are acknowledged: an ack the server refused would leave them pending, and redelivered.
    const streams = await admin.jetstreamManager();
    const unacknowledged = async () => {
      const pending: string[] = [];
      for (const { config } of await streams.streams.list().next()) {
        for (const consumer of await streams.consumers.list(config.name).next()) {
          if (consumer.num_ack_pending > 0 || consumer.num_pending > 0) pending.push(`${config.name} ${consumer.name}`);
        }
      }
      return pending;
    };
    await waitFor(async () => (await unacknowledged()).length === 0, 5_000, 'every delivered event acknowledged');

    // The per-instance consumers go with their process: deleting them is allowed too.
    await Promise.all([buses.relay.close(), buses.gateway.close()]);
    const perInstance: string[] = [];
    for (const { config } of await streams.streams.list().next()) {
      for (const consumer of await streams.consumers.list(config.name).next()) if (!consumer.config.durable_name) perInstance.push(consumer.name);
    }
    expect(perInstance).toEqual([]);
  });

  it('refuse a connection without credentials, with a wrong password or as a user nobody made', async () => {
    await expect(createBus({ natsUrl: server.url, logger })).rejects.toThrow(/authorization violation/i);
    await expect(busOf('relay', 'not-the-password')).rejects.toThrow(/authorization violation/i);
    await expect(busOf('mallory', 'n0123456789abcdef')).rejects.toThrow(/authorization violation/i);
  });

  it('refuse a usage record from any service but the relay, at once, and nothing reaches a billing consumer', async () => {
    const billing = await busOf('billing');
    const seen: string[] = [];
    await billing.subscribe('relay.usage.recorded', async (event) => void seen.push(event.id), { durable: 'billing-usage-probe' });

    for (const user of serviceUsers.filter((user) => user !== 'relay')) {
      const bus = await busOf(user);
      for (const subject of ['relay.usage.recorded', 'relay.request.started']) {
        const started = Date.now();
        // A service that may not touch the relay's stream at all is stopped at its JetStream API call.
        await expect(bus.publish(subject, forged, { id: `forged-${user}-${subject}` })).rejects.toThrow(/permissions violation for publish/i);
        // Refused by the server, not timed out (the adapter's JetStream publish waits 5 s for its ack).
        expect(Date.now() - started).toBeLessThan(3_000);
      }
    }
    // Straight to the subject, past JetStream's API: the server drops it just the same.
    const notifier = await clientOf('notifier');
    notifier.publish(
      'relay.usage.recorded',
      JSON.stringify({ id: 'forged-core', subject: 'relay.usage.recorded', time: new Date().toISOString(), data: forged }),
    );
    await notifier.flush();

    const relay = await busOf('relay');
    await relay.publish('relay.usage.recorded', { request_id: 'genuine' }, { id: 'genuine' });
    // Stream order: once the genuine record is in, anything forged before it would have been too.
    await waitFor(() => seen.includes('genuine'), 5_000, 'the genuine usage record');
    expect(seen.filter((id) => id.startsWith('forged'))).toEqual([]);
  });

  it("refuse changing, purging or deleting a stream, consumers on what a service does not read, and other services' inboxes", async () => {
    // Make sure the relay's stream exists, so a refusal is about permissions, not a missing stream.
    await (await busOf('relay')).publish('relay.channel.failed', { probe: true });
    const notifierStreams = await (await clientOf('notifier')).jetstreamManager();
    await expect(notifierStreams.streams.update('RELAY', { subjects: ['relay.>', 'notifier.>'] })).rejects.toThrow(/permissions violation/i);
    await expect(notifierStreams.streams.purge('RELAY')).rejects.toThrow(/permissions violation/i);
    await expect(notifierStreams.streams.delete('RELAY')).rejects.toThrow(/permissions violation/i);

    const identity = await clientOf('identity');
    const identityStreams = await identity.jetstreamManager();
    await expect(
      identityStreams.consumers.add('RELAY', { durable_name: 'snoop', filter_subject: 'relay.usage.recorded', ack_policy: AckPolicy.Explicit }),
    ).rejects.toThrow(/permissions violation/i);
    // The gateway reads identity's stream, but only the subjects it consumes.
    const gatewayStreams = await (await clientOf('gateway')).jetstreamManager();
    await expect(
      gatewayStreams.consumers.add('IDENTITY', { durable_name: 'snoop', filter_subject: 'identity.option.updated', ack_policy: AckPolicy.Explicit }),
    ).rejects.toThrow(/permissions violation/i);

    for (const subject of ['_INBOX.>', `${natsInboxPrefix('relay')}.>`, 'relay.usage.recorded', 'rpc.channels.channel.key']) {
      await expect(subscriptionRefusal(identity, subject)).resolves.toMatchObject({
        message: expect.stringMatching(/permissions violation for subscription/i),
      });
    }
    const relayStream = await (await admin.jetstreamManager()).streams.info('RELAY');
    expect(relayStream.config.subjects).toEqual(['relay.>']);
  });
});
