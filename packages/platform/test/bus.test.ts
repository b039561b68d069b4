import net from 'node:net';
import { connect, type JetStreamManager } from 'nats';
import type { Bus, BusEvent, DeadLetter } from '../src/bus/bus.js';
import { createBus } from '../src/bus/index.js';
import { createMemoryBus } from '../src/bus/memory-bus.js';
import { createNatsBus } from '../src/bus/nats-bus.js';
import { createSilentLogger } from '../src/logger.js';
import { testServices, uniqueName } from '../src/testing/services.js';
import { defineBusContract } from './contracts/bus.contract.js';

defineBusContract('in-process', async ({ logger }) => {
  const bus = createMemoryBus({ logger });
  // One process is the whole backend: the peer is the same instance.
  return { bus, makePeer: async () => bus, cleanup: () => bus.close() };
});

// One namespace per test file, so files run in parallel on one server and reruns start clean.
const namespace = uniqueName('bus');

defineBusContract('NATS JetStream', async ({ logger }) => {
  const { natsUrl } = await testServices();
  const buses: Bus[] = [];
  const open = async () => {
    const bus = await createNatsBus({ url: natsUrl, namespace, logger });
    buses.push(bus);
    return bus;
  };
  return {
    bus: await open(),
    makePeer: open,
    cleanup: async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      await deleteStreams(natsUrl, namespace);
    },
  };
});

describe('in-process bus', () => {
  it('forgets event ids once the duplicate window has passed', async () => {
    const bus = createMemoryBus({ logger: createSilentLogger(), duplicateWindowMs: 50 });
    const received: BusEvent[] = [];
    await bus.subscribe('billing.topup.completed', async (event) => void received.push(event), { durable: 'window' });

    await bus.publish('billing.topup.completed', { n: 1 }, { id: 'topup-1' });
    await waitFor(() => received.length === 1);
    // A fixed wait: the window's end is a time, and no event marks it.
    await new Promise((resolve) => setTimeout(resolve, 60));
    await bus.publish('billing.topup.completed', { n: 2 }, { id: 'topup-1' });

    await waitFor(() => received.length === 2);
    expect(received.map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
    await bus.close();
  });
});

describe('in-process bus, many ids', () => {
  it('forgets the oldest event ids past duplicateIdsKept', async () => {
    const bus = createMemoryBus({ logger: createSilentLogger(), duplicateIdsKept: 2 });
    const received: BusEvent[] = [];
    await bus.subscribe('billing.topup.completed', async (event) => void received.push(event), { durable: 'kept' });

    for (const id of ['topup-1', 'topup-2', 'topup-3']) await bus.publish('billing.topup.completed', { id }, { id });
    // topup-1 was the oldest of three: forgotten, so delivered again; topup-3 is still known.
    await bus.publish('billing.topup.completed', { id: 'topup-1', again: true }, { id: 'topup-1' });
    await bus.publish('billing.topup.completed', { id: 'topup-3', again: true }, { id: 'topup-3' });
    const last = await bus.publish('billing.topup.completed', { id: 'last' });

    await waitFor(() => received.some((event) => event.id === last.id));
    expect(received.map((event) => event.data)).toEqual([
      { id: 'topup-1' },
      { id: 'topup-2' },
      { id: 'topup-3' },
      { id: 'topup-1', again: true },
      { id: 'last' },
    ]);
    await bus.close();
  });
});

describe('createBus', () => {
  it('is in-process without a NATS URL', async () => {
    const bus = await createBus({ logger: createSilentLogger() });
    await bus.reply('identity.option.get', async () => 'in-process');
    await expect(bus.request('identity.option.get', {})).resolves.toBe('in-process');
    await bus.close();
  });

  it('uses NATS when a URL is set', async () => {
    const { natsUrl } = await testServices();
    const bus = await createBus({ natsUrl, namespace, logger: createSilentLogger() });
    const peer = await createNatsBus({ url: natsUrl, namespace, logger: createSilentLogger() });
    await peer.reply('identity.option.get', async () => 'over NATS');
    await expect(bus.request('identity.option.get', {})).resolves.toBe('over NATS');
    await Promise.all([bus.close(), peer.close()]);
  });
});

describe('NATS bus', () => {
  afterEach(async () => {
    await deleteStreams((await testServices()).natsUrl, namespace);
  });

  it('removes the consumer of a subscription without a durable name when it goes', async () => {
    const { natsUrl } = await testServices();
    const bus = await createNatsBus({ url: natsUrl, namespace, logger: createSilentLogger() });
    const countConsumers = () => withManager(natsUrl, async (jsm) => (await jsm.streams.info(`${namespace.toUpperCase()}_NOTIFIER`)).state.consumer_count);

    const subscription = await bus.subscribe('notifier.delivery.failed', async () => undefined, {});
    expect(await countConsumers()).toBe(1);
    await subscription.unsubscribe();

    expect(await countConsumers()).toBe(0);
    await bus.close();
  });

  it('hands an undecodable message to the dead-letter sink as received, and goes on with the next one', async () => {
    const { natsUrl } = await testServices();
    const bus = await createNatsBus({ url: natsUrl, namespace, logger: createSilentLogger() });
    const letters: DeadLetter[] = [];
    const handled: unknown[] = [];
    await bus.subscribe('notifier.delivery.failed', async (event) => void handled.push(event.data), {
      durable: 'garbled',
      deadLetter: async (letter) => void letters.push(letter),
    });

    // A publisher that is not ours writes bytes no envelope parses.
    const nc = await connect({ servers: natsUrl });
    await nc.jetstream().publish(`${namespace}.notifier.delivery.failed`, new TextEncoder().encode('{not json'), { msgID: 'garbled-1' });
    await nc.close();
    await bus.publish('notifier.delivery.failed', { n: 2 });

    await waitFor(() => letters.length === 1 && handled.length === 1);
    expect(letters[0]).toEqual({
      id: 'garbled-1',
      subject: 'notifier.delivery.failed',
      time: expect.any(String),
      payload: '{not json',
      consumer: 'garbled',
      pattern: 'notifier.delivery.failed',
      error: expect.stringMatching(/^undecodable event: /),
      attempts: 1,
      failedAt: expect.any(String),
    });
    expect(handled).toEqual([{ n: 2 }]);
    await bus.close();
  });

  it('sends the publishes of one turn in one write, and what was published or handled before it closes', async () => {
    const { natsUrl } = await testServices();
    const publisher = await createNatsBus({ url: natsUrl, namespace, logger: createSilentLogger() });
    await publisher.publish('notifier.delivery.failed', { n: 0 }); // the stream exists, the connection is warm

    // Twenty callbacks of one turn (immediates queued together, each followed by its microtasks) each publish, the way requests finish.
    const writes = countWritesTo(Number(new URL(natsUrl).port || 4222));
    const published = await Promise.all(
      Array.from(
        { length: 20 },
        (_, index) =>
          new Promise<BusEvent>((resolve, reject) =>
            setImmediate(() => void publisher.publish('notifier.delivery.failed', { n: index + 1 }).then(resolve, reject)),
          ),
      ),
    );
    expect(writes.stop()).toBe(1);
    expect(published.map((event) => event.data)).toEqual(Array.from({ length: 20 }, (_, index) => ({ n: index + 1 })));
    // Closed in the turn of a publish: it goes out before the connection drains.
    const last = publisher.publish('notifier.delivery.failed', { n: 21 });
    await publisher.close();
    await expect(last).resolves.toMatchObject({ data: { n: 21 } });

    const consumer = await createNatsBus({ url: natsUrl, namespace, logger: createSilentLogger() });
    const handled: unknown[] = [];
    await consumer.subscribe('notifier.delivery.failed', async (event) => void handled.push(event.data), { durable: 'turns', inFlight: 8 });
    await waitFor(() => handled.length === 22);
    // Closed at once: the acks of the last handlers, still waiting for the turn's end, go out first.
    await consumer.close();
    const info = await withManager(natsUrl, async (jsm) => {
      const stream = `${namespace.toUpperCase()}_NOTIFIER`;
      const [name] = (await jsm.consumers.list(stream).next()).map((entry) => entry.name);
      return jsm.consumers.info(stream, name!);
    });
    expect({ acked: info.ack_floor.consumer_seq, pending: info.num_ack_pending, redelivered: info.num_redelivered }).toEqual({
      acked: 22,
      pending: 0,
      redelivered: 0,
    });
  });
});

/** Counts the socket writes this process makes to `port` until stop() (which returns the count). */
function countWritesTo(port: number): { stop(): number } {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, called with its socket as this
  const write = net.Socket.prototype.write;
  let count = 0;
  net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<typeof write>) {
    if (this.remotePort === port) count++;
    return write.apply(this, args);
  } as typeof write;
  return {
    stop() {
      net.Socket.prototype.write = write;
      return count;
    },
  };
}

async function withManager<T>(natsUrl: string, work: (jsm: JetStreamManager) => Promise<T>): Promise<T> {
  const nc = await connect({ servers: natsUrl });
  try {
    return await work(await nc.jetstreamManager());
  } finally {
    await nc.close();
  }
}

async function deleteStreams(natsUrl: string, namespace: string): Promise<void> {
  const prefix = `${namespace.toUpperCase()}_`;
  await withManager(natsUrl, async (jsm) => {
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(prefix)) await jsm.streams.delete(name);
    }
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
