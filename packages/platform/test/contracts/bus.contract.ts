import { randomUUID } from 'node:crypto';
import { BusRequestError, type Bus, type BusEvent, type DeadLetter } from '../../src/bus/bus.js';
import { createLogger, type Logger } from '../../src/logger.js';

export interface BusUnderTest {
  bus: Bus;
  /** A second bus on the same backend, for cross-instance tests (an adapter without one may return `bus`). */
  makePeer: () => Promise<Bus>;
  /** Closes every bus it made and removes what the test left on the backend. */
  cleanup: () => Promise<void>;
}

interface LogLine {
  level: number;
  msg: string;
  id?: string;
  attempt?: number;
}

/**
 * The behaviour every Bus adapter must have (docs/architecture.md section 4). `factory` gets the
 * logger to give its buses, so tests can see what they log. Every test uses its own domain, so
 * tests never see each other's events even when they share a backend.
 */
export function defineBusContract(name: string, factory: (context: { logger: Logger }) => Promise<BusUnderTest>): void {
  describe(`Bus contract: ${name}`, () => {
    let subject: BusUnderTest;
    let bus: Bus;
    let domain: string;
    let logLines: LogLine[];

    beforeEach(async () => {
      domain = `t${randomUUID().slice(0, 8)}`;
      logLines = [];
      const logger = createLogger({ level: 'warn', service: 'bus-contract' }, { write: (line: string) => logLines.push(JSON.parse(line) as LogLine) });
      subject = await factory({ logger });
      bus = subject.bus;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    it('delivers a published event with its id, subject, time, data and attempt 1', async () => {
      const received: BusEvent[] = [];
      await bus.subscribe(`${domain}.order.created`, async (event) => void received.push(event), { durable: 'worker' });
      const payload = { orderId: 7, items: ['a', 'b'] };

      const published = await bus.publish(`${domain}.order.created`, payload);

      await waitFor(() => received.length === 1);
      const [event] = received;
      expect(event).toEqual({ id: published.id, subject: `${domain}.order.created`, time: published.time, data: payload, attempt: 1 });
      expect(event!.data).not.toBe(payload);
      expect(new Date(event!.time).toISOString()).toBe(event!.time);
    });

    it("carries a publisher's trace context to the consumer (a header on the wire), and none when none was given", async () => {
      const received: BusEvent[] = [];
      await bus.subscribe(`${domain}.order.traced`, async (event) => void received.push(event), { durable: 'worker' });
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      await bus.publish(`${domain}.order.traced`, { n: 1 }, { trace: traceparent });
      await bus.publish(`${domain}.order.traced`, { n: 2 });
      await waitFor(() => received.length === 2);
      expect(received.map((event) => event.trace)).toEqual([traceparent, undefined]);
    });

    it('matches `*` to one token and `>` to the rest, and refuses wildcards when publishing', async () => {
      const oneToken: string[] = [];
      const rest: string[] = [];
      await bus.subscribe(`${domain}.*.created`, async (event) => void oneToken.push(event.subject), { durable: 'one-token' });
      await bus.subscribe(`${domain}.>`, async (event) => void rest.push(event.subject), { durable: 'rest' });

      for (const suffix of ['order.created', 'order.deleted', 'user.created', 'user.profile.created']) {
        await bus.publish(`${domain}.${suffix}`, {});
      }

      await waitFor(() => rest.length === 4 && oneToken.length === 2);
      expect(oneToken).toEqual([`${domain}.order.created`, `${domain}.user.created`]);
      expect(rest).toEqual(['order.created', 'order.deleted', 'user.created', 'user.profile.created'].map((suffix) => `${domain}.${suffix}`));
      await expect(bus.publish(`${domain}.*.created`, {})).rejects.toThrow(/subject/);
    });

    it('runs the handlers of one consumer one at a time, in publication order', async () => {
      const seen: number[] = [];
      let running = 0;
      let mostAtOnce = 0;
      await bus.subscribe(
        `${domain}.counter.incremented`,
        async (event) => {
          running += 1;
          mostAtOnce = Math.max(mostAtOnce, running);
          await sleep(Math.random() * 5); // the handler's own work, not a wait
          seen.push((event.data as { n: number }).n);
          running -= 1;
        },
        { durable: 'ordered' },
      );

      for (let n = 0; n < 30; n += 1) await bus.publish(`${domain}.counter.incremented`, { n });

      await waitFor(() => seen.length === 30);
      expect(seen).toEqual([...Array(30).keys()]);
      expect(mostAtOnce).toBe(1);
    });

    it('hands one subscriber up to inFlight events at once, and the next as one finishes', async () => {
      const held: Array<{ n: number; finish: () => void }> = [];
      const done: number[] = [];
      await bus.subscribe(
        `${domain}.counter.incremented`,
        async (event) => {
          const n = (event.data as { n: number }).n;
          await new Promise<void>((resolve) => held.push({ n, finish: resolve }));
          done.push(n);
        },
        { durable: 'batched', inFlight: 3 },
      );

      for (let n = 0; n < 5; n += 1) await bus.publish(`${domain}.counter.incremented`, { n });

      await waitFor(() => held.length === 3);
      // Three held, the other two wait for room: none of them has started.
      await sleep(100); // proves nothing more is handed over while the three are held
      expect(held.map((entry) => entry.n).sort()).toEqual([0, 1, 2]);
      held[1]!.finish();
      await waitFor(() => held.length === 4);
      for (const entry of held) entry.finish();
      await waitFor(() => held.length === 5);
      held[4]!.finish();
      await waitFor(() => done.length === 5);
      expect([...done].sort()).toEqual([0, 1, 2, 3, 4]);
    });

    it('redelivers an event whose handler threw, after retryDelayMs, with the attempt counted', async () => {
      const attempts: Array<{ attempt: number; at: number }> = [];
      await bus.subscribe(
        `${domain}.payment.captured`,
        async (event) => {
          attempts.push({ attempt: event.attempt, at: Date.now() });
          if (event.attempt < 3) throw new Error('database unavailable');
        },
        { durable: 'flaky', retryDelayMs: 50, maxDeliver: 5 },
      );

      await bus.publish(`${domain}.payment.captured`, { amount: 1 });

      await waitFor(() => attempts.length === 3);
      expect(attempts.map((entry) => entry.attempt)).toEqual([1, 2, 3]);
      expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(40);
      expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(40);
      // A fixed wait: a fourth attempt would come a retryDelayMs later, and nothing marks its absence.
      await sleep(120);
      expect(attempts).toHaveLength(3);
    });

    it('gives an event up after maxDeliver failures, logs it, and goes on with the next one', async () => {
      const attempts: number[] = [];
      const handled: string[] = [];
      await bus.subscribe(
        `${domain}.payment.refunded`,
        async (event) => {
          if ((event.data as { poison: boolean }).poison) {
            attempts.push(event.attempt);
            throw new Error('cannot handle this one');
          }
          handled.push(event.id);
        },
        { durable: 'poisoned', retryDelayMs: 50, maxDeliver: 3 },
      );

      const poison = await bus.publish(`${domain}.payment.refunded`, { poison: true });
      const healthy = await bus.publish(`${domain}.payment.refunded`, { poison: false });

      await waitFor(() => logLines.some((line) => line.id === poison.id && line.level >= 50) && handled.length === 1);
      // A fixed wait: a fourth attempt would come a retryDelayMs later, and nothing marks its absence.
      await sleep(120);
      expect(attempts).toEqual([1, 2, 3]);
      expect(handled).toEqual([healthy.id]);
    });

    it("hands an event to the subscriber's dead-letter sink after its last delivery, once, and goes on", async () => {
      const letters: DeadLetter[] = [];
      const handled: string[] = [];
      let fixed = false;
      await bus.subscribe(
        `${domain}.invoice.*`,
        async (event) => {
          const { n } = event.data as { n: number };
          if (n === 1 && !fixed) throw new Error(`invoice ${n} cannot be sent`);
          handled.push(event.id);
        },
        { durable: 'mailer', retryDelayMs: 50, maxDeliver: 2, deadLetter: async (letter) => void letters.push(letter) },
      );

      const poison = await bus.publish(`${domain}.invoice.sent`, { n: 1, lines: ['a'] });
      const healthy = await bus.publish(`${domain}.invoice.sent`, { n: 2 });

      await waitFor(() => letters.length === 1 && handled.length === 1);
      expect(letters[0]).toEqual({
        id: poison.id,
        subject: `${domain}.invoice.sent`,
        time: poison.time,
        payload: JSON.stringify({ n: 1, lines: ['a'] }),
        consumer: 'mailer',
        pattern: `${domain}.invoice.*`,
        error: 'invoice 1 cannot be sent',
        attempts: 2,
        failedAt: expect.any(String),
      });
      expect(Date.parse(letters[0]!.failedAt)).toBeGreaterThanOrEqual(Date.parse(poison.time));
      expect(handled).toEqual([healthy.id]);
      expect(logLines.some((line) => line.id === poison.id && line.level >= 50)).toBe(true);
      fixed = true;
      // A fixed wait: a third delivery would come a retryDelayMs later, and nothing marks its absence.
      await sleep(120);
      expect(letters).toHaveLength(1);
      expect(handled).toEqual([healthy.id]);
    });

    it('names a subscription without a durable name by its subject in a dead letter, and drops the event when the sink fails', async () => {
      const letters: DeadLetter[] = [];
      await bus.subscribe(
        `${domain}.cache.flushed`,
        async () => {
          throw new Error('cache is read-only');
        },
        { maxDeliver: 1, deadLetter: async (letter) => void letters.push(letter) },
      );
      await bus.subscribe(
        `${domain}.cache.flushed`,
        async () => {
          throw new Error('cache is read-only');
        },
        {
          maxDeliver: 1,
          deadLetter: async () => {
            throw new Error('database unavailable');
          },
        },
      );

      const event = await bus.publish(`${domain}.cache.flushed`, {});

      await waitFor(() => letters.length === 1 && logLines.some((line) => line.id === event.id && /not stored/.test(line.msg)));
      expect(letters[0]).toMatchObject({ id: event.id, consumer: `${domain}.cache.flushed`, pattern: `${domain}.cache.flushed`, attempts: 1, payload: '{}' });
    });

    it('delivers an event once when it is published twice with the same id', async () => {
      const received: string[] = [];
      await bus.subscribe(`${domain}.usage.recorded`, async (event) => void received.push(event.id), { durable: 'dedupe' });
      const id = randomUUID();

      await bus.publish(`${domain}.usage.recorded`, { tokens: 10 }, { id });
      await bus.publish(`${domain}.usage.recorded`, { tokens: 10 }, { id });
      const next = await bus.publish(`${domain}.usage.recorded`, { tokens: 20 });

      // Order per subject means the duplicate, if delivered, would arrive before `next`.
      await waitFor(() => received.includes(next.id));
      expect(received).toEqual([id, next.id]);
    });

    it('delivers what was published before a durable consumer existed', async () => {
      for (let n = 0; n < 3; n += 1) await bus.publish(`${domain}.user.registered`, { n });
      const seen: number[] = [];

      await bus.subscribe(`${domain}.user.registered`, async (event) => void seen.push((event.data as { n: number }).n), { durable: 'late' });

      await waitFor(() => seen.length === 3);
      expect(seen).toEqual([0, 1, 2]);
    });

    it('resumes a durable consumer where it stopped, keeping what was published while detached', async () => {
      const seen: number[] = [];
      const handler = async (event: BusEvent) => void seen.push((event.data as { n: number }).n);
      const first = await bus.subscribe(`${domain}.user.updated`, handler, { durable: 'resumable' });
      await bus.publish(`${domain}.user.updated`, { n: 0 });
      await waitFor(() => seen.length === 1);
      await first.unsubscribe();

      await bus.publish(`${domain}.user.updated`, { n: 1 });
      await bus.publish(`${domain}.user.updated`, { n: 2 });
      // A fixed wait: nothing is delivered to a detached consumer, so no event can mark it.
      await sleep(50);
      expect(seen).toEqual([0]);
      await bus.subscribe(`${domain}.user.updated`, handler, { durable: 'resumable' });

      await waitFor(() => seen.length === 3);
      expect(seen).toEqual([0, 1, 2]);
    });

    it('gives every event to each durable name, and shares it among subscribers of one name', async () => {
      const peer = await subject.makePeer();
      const audit: string[] = [];
      const workers: string[][] = [[], []];
      await bus.subscribe(`${domain}.token.updated`, async (event) => void audit.push(event.id), { durable: 'audit' });
      await bus.subscribe(`${domain}.token.updated`, async (event) => void workers[0]!.push(event.id), { durable: 'cache' });
      await peer.subscribe(`${domain}.token.updated`, async (event) => void workers[1]!.push(event.id), { durable: 'cache' });

      const ids: string[] = [];
      for (let n = 0; n < 20; n += 1) ids.push((await bus.publish(`${domain}.token.updated`, { n })).id);

      await waitFor(() => audit.length === 20 && workers[0]!.length + workers[1]!.length === 20);
      // A fixed wait: a copy delivered twice would come after the twenty, and nothing marks its absence.
      await sleep(100);
      expect(audit).toEqual(ids);
      expect([...workers[0]!, ...workers[1]!].sort()).toEqual([...ids].sort());
    });

    it('acknowledges unread the events a subscriber does not want, deciding as each reaches it', async () => {
      const numberOf = (event: BusEvent) => (event.data as { n: number }).n;
      const kept = `${domain}.usage.kept`;
      const skipped = `${domain}.usage.skipped`;
      let wanted = new Set([kept]);
      const received: number[] = [];
      const subscription = await bus.subscribe(`${domain}.usage.>`, async (event) => void received.push(numberOf(event)), {
        durable: 'hooks',
        wants: (subject) => wanted.has(subject),
      });
      for (let n = 0; n < 6; n += 1) await bus.publish(n % 2 === 1 ? kept : skipped, { n });
      await waitFor(() => received.length === 3);
      wanted = new Set([kept, skipped]);
      await bus.publish(skipped, { n: 6 });
      await waitFor(() => received.length === 4);
      expect(received).toEqual([1, 3, 5, 6]);

      // Nothing skipped is left to the durable: subscribed again, it gets only what comes next.
      await subscription.unsubscribe();
      const again: number[] = [];
      await bus.subscribe(`${domain}.usage.>`, async (event) => void again.push(numberOf(event)), { durable: 'hooks' });
      await bus.publish(skipped, { n: 7 });
      await waitFor(() => again.length === 1);
      expect(again).toEqual([7]);
    });

    it('gives a subscription without a durable name every event from the moment it subscribed, and keeps nothing after it goes', async () => {
      const peer = await subject.makePeer();
      const numberOf = (event: BusEvent) => (event.data as { n: number }).n;
      const mine: number[] = [];
      const theirs: number[] = [];
      const later: number[] = [];
      await bus.publish(`${domain}.option.updated`, { n: 0 });
      const subscription = await bus.subscribe(`${domain}.option.updated`, async (event) => void mine.push(numberOf(event)), {});
      await peer.subscribe(`${domain}.option.updated`, async (event) => void theirs.push(numberOf(event)), {});

      await bus.publish(`${domain}.option.updated`, { n: 1 });
      await bus.publish(`${domain}.option.updated`, { n: 2 });
      await waitFor(() => mine.length === 2 && theirs.length === 2);
      await subscription.unsubscribe();
      await bus.publish(`${domain}.option.updated`, { n: 3 });
      await bus.subscribe(`${domain}.option.updated`, async (event) => void later.push(numberOf(event)), {});
      await bus.publish(`${domain}.option.updated`, { n: 4 });

      await waitFor(() => later.length === 1 && theirs.length === 4);
      expect(mine).toEqual([1, 2]);
      expect(theirs).toEqual([1, 2, 3, 4]);
      expect(later).toEqual([4]);
    });

    it('answers a request', async () => {
      await bus.reply(`${domain}.user.get`, async (data) => ({ id: (data as { id: number }).id, name: 'ada' }));

      await expect(bus.request(`${domain}.user.get`, { id: 3 })).resolves.toEqual({ id: 3, name: 'ada' });
    });

    it('shares requests among responder replicas', async () => {
      const peer = await subject.makePeer();
      const answered = [0, 0];
      await bus.reply(`${domain}.balance.get`, async () => ++answered[0]!);
      await peer.reply(`${domain}.balance.get`, async () => ++answered[1]!);

      await Promise.all([...Array(40).keys()].map(() => bus.request(`${domain}.balance.get`, {})));

      expect(answered[0]! + answered[1]!).toBe(40);
      expect(answered[0]).toBeGreaterThan(0);
      expect(answered[1]).toBeGreaterThan(0);
    });

    it("rejects with reason 'remote-error', the message and the code when the responder throws", async () => {
      await bus.reply(`${domain}.user.get`, async () => {
        throw Object.assign(new Error('user 3 not found'), { code: 'USER_NOT_FOUND' });
      });
      await bus.reply(`${domain}.user.list`, async () => {
        throw new Error('list failed');
      });

      const coded = await bus.request(`${domain}.user.get`, { id: 3 }).catch((error: unknown) => error);
      const uncoded = await bus.request(`${domain}.user.list`, {}).catch((error: unknown) => error);

      expect(coded).toBeInstanceOf(BusRequestError);
      expect(coded).toMatchObject({ reason: 'remote-error', message: 'user 3 not found', code: 'USER_NOT_FOUND', subject: `${domain}.user.get` });
      expect(uncoded).toMatchObject({ reason: 'remote-error', message: 'list failed', code: undefined });
    });

    it("rejects quickly with reason 'no-responder' when nobody answers the subject", async () => {
      const started = Date.now();

      const error = await bus.request(`${domain}.nobody.home`, {}, { timeoutMs: 5000 }).catch((failure: unknown) => failure);

      expect(error).toBeInstanceOf(BusRequestError);
      expect(error).toMatchObject({ reason: 'no-responder' });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it("rejects with reason 'timeout' when the responder is too slow", async () => {
      await bus.reply(`${domain}.report.build`, async () => {
        await sleep(300); // the slow responder under test, not a wait
        return 'late';
      });

      const error = await bus.request(`${domain}.report.build`, {}, { timeoutMs: 100 }).catch((failure: unknown) => failure);

      expect(error).toBeInstanceOf(BusRequestError);
      expect(error).toMatchObject({ reason: 'timeout' });
    });

    it('waits for the handler in progress when closing, then delivers nothing more', async () => {
      const handled: number[] = [];
      const started = deferred();
      const release = deferred();
      await bus.subscribe(
        `${domain}.task.updated`,
        async (event) => {
          const { n } = event.data as { n: number };
          if (n === 0) {
            started.resolve();
            await release.promise;
          }
          handled.push(n);
        },
        { durable: 'closing' },
      );
      await bus.publish(`${domain}.task.updated`, { n: 0 });
      await bus.publish(`${domain}.task.updated`, { n: 1 });
      await started.promise;

      let closed = false;
      const closing = bus.close().then(() => (closed = true));
      // A fixed wait: close must not finish while the handler runs, and nothing marks "not yet".
      await sleep(50);
      expect(closed).toBe(false);
      release.resolve();
      await closing;

      expect(handled).toEqual([0]);
      // A fixed wait: a closed bus delivers nothing, so no event can mark it.
      await sleep(50);
      expect(handled).toEqual([0]);
      await expect(bus.publish(`${domain}.task.updated`, { n: 2 })).rejects.toThrow(/closed/);
    });
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
