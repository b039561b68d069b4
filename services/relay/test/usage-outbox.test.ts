// The relay's durable usage outbox (usage-outbox.ts): what was not acknowledged survives a
// process killed with -9 and comes back, in order, to the next process; a stream's checkpoint
// without its record comes back as the record; acknowledged segments are deleted; the bounds
// refuse more; and the publisher sends what a previous process left before anything new.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventExamples, type UsageRecord } from '@aigw/contracts';
import { createSilentLogger, type Bus, type BusEvent } from '@aigw/platform';
import { waitFor } from '@aigw/platform/testing';
import { UsageOutbox, type OutboxEvent } from '../src/usage-outbox';
import { createUsagePublisher } from '../src/usage-publisher';

const logger = createSilentLogger();
const limits = { maxRecords: 1_000_000, maxBytes: 1024 * 1024 * 1024 };
const dirs: string[] = [];

function freshDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-outbox-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A usage record from the catalogue's example. */
function record(requestId: string, quota: number): UsageRecord {
  return { ...eventExamples['relay.usage.recorded'], request_id: requestId, quota };
}

const usageEvent = (requestId: string, quota = 1): OutboxEvent => ({ id: requestId, subject: 'relay.usage.recorded', payload: record(requestId, quota) });

/** A Bus whose publishes fail while `down`, and are kept in order otherwise. */
function flakyBus(): Bus & { down: boolean; published: BusEvent[] } {
  const bus = {
    down: false,
    published: [] as BusEvent[],
    async publish(subject: string, data: unknown, options?: { id?: string }) {
      if (bus.down) throw new Error('the bus is away');
      const event: BusEvent = { id: options?.id ?? 'x', subject, time: new Date().toISOString(), data, attempt: 1 };
      bus.published.push(event);
      return event;
    },
    subscribe: () => Promise.reject(new Error('not used')),
    request: () => Promise.reject(new Error('not used')),
    reply: () => Promise.reject(new Error('not used')),
    close: async () => undefined,
  };
  return bus;
}

it('keeps what was not acknowledged across a process killed with -9, in order, and checkpoints of unfinished streams as their records', async () => {
  const dir = freshDir();
  // A real process writes and is killed: nothing it wrote synchronously may be lost.
  const script = `
    const { UsageOutbox } = await import(${JSON.stringify(path.resolve('services/relay/dist/usage-outbox.js'))});
    const silent = { info() {}, warn() {}, error() {}, debug() {}, child() { return silent; } };
    const { outbox } = UsageOutbox.open(${JSON.stringify(dir)}, { maxRecords: 100, maxBytes: 1e9 }, silent);
    const rec = (id, quota) => ({ request_id: id, user_id: 7, token_id: 3, token_name: 'k', model_name: 'm', group: 'default', channel_id: 1, prompt_tokens: 1, completion_tokens: quota, quota, use_time_ms: 1, is_stream: true, created_at: 1, content: 'c', other: {} });
    for (const id of ['a', 'b', 'c']) outbox.append({ id, subject: 'relay.usage.recorded', payload: rec(id, 1) });
    outbox.acknowledge('b');
    outbox.checkpoint(rec('stream-1', 40));
    outbox.checkpoint(rec('stream-1', 90));
    outbox.checkpoint(rec('stream-2', 10));
    outbox.append({ id: 'stream-2', subject: 'relay.usage.recorded', payload: rec('stream-2', 12) });
    // Once written() resolved (the end of this turn), a killed process keeps every line.
    await outbox.written();
    process.stdout.write('ready\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;

  const { outbox, recovered } = UsageOutbox.open(dir, limits, logger);
  try {
    // a and c unacknowledged (b's acknowledgement may not have been written: a replay is harmless), stream-2 finished, stream-1's last checkpoint.
    const ids = recovered.map((event) => event.id);
    expect(ids.filter((id) => id !== 'b')).toEqual(['a', 'c', 'stream-2', 'stream-1']);
    expect((recovered.find((event) => event.id === 'stream-1')!.payload as UsageRecord).quota).toBe(90);
    expect((recovered.find((event) => event.id === 'stream-2')!.payload as UsageRecord).quota).toBe(12);
    expect(outbox.pending.events).toBe(recovered.length);
  } finally {
    outbox.close();
  }
  // Carried into one fresh segment: the old files are gone.
  expect(fs.readdirSync(dir).filter((file) => file.endsWith('.jsonl'))).toHaveLength(1);
});

it("writes a turn's lines in one write at its end, written() resolving after it; a failed write rejects written() and is logged", async () => {
  const dir = freshDir();
  const errors: unknown[] = [];
  const watching = Object.assign(createSilentLogger(), { error: (...args: unknown[]) => void errors.push(args) });
  const { outbox } = UsageOutbox.open(dir, limits, watching);
  const writes = jest.spyOn(fs, 'writeSync');
  try {
    const segment = () => fs.readdirSync(dir).find((file) => file.endsWith('.jsonl'))!;
    const lines = () => fs.readFileSync(path.join(dir, segment()), 'utf8').split('\n').filter(Boolean);
    for (const id of ['t1', 't2', 't3']) outbox.checkpoint(record(id, 2));
    outbox.append(usageEvent('t4'));
    expect(lines()).toHaveLength(0);
    await outbox.written();
    expect(lines().map((line) => JSON.parse(line).c?.request_id ?? JSON.parse(line).e?.id)).toEqual(['t1', 't2', 't3', 't4']);
    expect(writes).toHaveBeenCalledTimes(1);
    // Nothing buffered: resolved at once.
    await outbox.written();

    writes.mockImplementationOnce(() => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    });
    outbox.checkpoint(record('lost', 3));
    await expect(outbox.written()).rejects.toThrow('no space left on device');
    expect(errors).toHaveLength(1);
    // The next turn writes again.
    outbox.checkpoint(record('next', 4));
    await outbox.written();
    expect(lines().at(-1)).toContain('"next"');
  } finally {
    writes.mockRestore();
    outbox.close();
  }
});

it('writes a record published as its checkpoint once: acknowledged, it does not come back; unacknowledged, it comes back as the record', () => {
  const dir = freshDir();
  const { outbox } = UsageOutbox.open(dir, limits, logger);
  const [settled, unsettled, recharged] = [record('settled', 5), record('unsettled', 6), record('recharged', 7)];
  for (const kept of [settled, unsettled, recharged]) outbox.checkpoint(kept);
  outbox.append({ id: 'settled', subject: 'relay.usage.recorded', payload: settled });
  outbox.append({ id: 'unsettled', subject: 'relay.usage.recorded', payload: unsettled });
  // Settle charged less than the checkpoint said: a record of its own, written as an event.
  outbox.append({ id: 'recharged', subject: 'relay.usage.recorded', payload: { ...recharged, quota: 4 } });
  expect(outbox.pending.events).toBe(3);
  outbox.acknowledge('settled');
  outbox.close();
  const lines = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.jsonl'))
    .flatMap((file) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean));
  expect(lines.filter((line) => line.includes('"settled"'))).toEqual([expect.stringContaining('"c":'), '{"a":"settled"}']);
  expect(lines.filter((line) => line.includes('"unsettled"'))).toHaveLength(1);
  expect(lines.filter((line) => line.includes('"recharged"'))).toHaveLength(2);

  const reopened = UsageOutbox.open(dir, limits, logger);
  try {
    expect(reopened.recovered.map((event) => [event.id, (event.payload as UsageRecord).quota])).toEqual([
      ['recharged', 4],
      ['unsettled', 6],
    ]);
  } finally {
    reopened.outbox.close();
  }
});

it('drops, with an error, a left event that fails its schema (it could never be recorded, and would hold up the rest)', () => {
  const dir = freshDir();
  const { outbox } = UsageOutbox.open(dir, limits, logger);
  outbox.append(usageEvent('before', 3));
  // Written by a relay of another version, or damaged on disk: a negative charge.
  outbox.append({ id: 'invalid', subject: 'relay.usage.recorded', payload: record('invalid', -5) });
  outbox.checkpoint({ ...record('invalid-checkpoint', 1), user_id: 0 });
  outbox.append(usageEvent('after', 4));
  outbox.close();
  const errors: unknown[] = [];
  const watching = Object.assign(createSilentLogger(), { error: (details: unknown) => void errors.push(details) });
  const reopened = UsageOutbox.open(dir, limits, watching);
  try {
    expect(reopened.recovered.map((event) => [event.id, (event.payload as UsageRecord).quota])).toEqual([
      ['before', 3],
      ['after', 4],
    ]);
    expect(errors).toEqual([expect.objectContaining({ id: 'invalid' }), expect.objectContaining({ id: 'invalid-checkpoint' })]);
  } finally {
    reopened.outbox.close();
  }
});

it('refuses a second relay on the same outbox while the first runs', () => {
  const dir = freshDir();
  const { outbox } = UsageOutbox.open(dir, limits, logger);
  try {
    expect(() => UsageOutbox.open(dir, limits, logger)).toThrow(/already open in this process/);
    outbox.close();
    // Another live process holds it.
    fs.writeFileSync(path.join(dir, 'lock'), String(process.ppid));
    expect(() => UsageOutbox.open(dir, limits, logger)).toThrow(/in use by process/);
  } finally {
    fs.rmSync(path.join(dir, 'lock'), { force: true });
  }
  // A dead holder's lock is taken over.
  const dead = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString());
  fs.writeFileSync(path.join(dir, 'lock'), String(dead));
  UsageOutbox.open(dir, limits, logger).outbox.close();
});

it('deletes segments once everything in them is acknowledged, and nothing comes back after a clean run', async () => {
  const dir = freshDir();
  const { outbox } = UsageOutbox.open(dir, limits, logger);
  // About 12 MiB of events: at least two segments of 8 MiB.
  const padding = 'x'.repeat(1200);
  for (let index = 0; index < 10_000; index++) outbox.append({ ...usageEvent(`r${index}`), payload: { ...record(`r${index}`, 1), content: padding } });
  expect(fs.readdirSync(dir).filter((file) => file.endsWith('.jsonl')).length).toBeGreaterThanOrEqual(2);
  for (let index = 0; index < 10_000; index++) outbox.acknowledge(`r${index}`);
  await waitFor(async () => fs.readdirSync(dir).filter((file) => file.endsWith('.jsonl')).length === 1, 5_000, 'acknowledged segments deleted');
  expect(outbox.pending).toEqual({ events: 0, bytes: 0 });
  outbox.close();
  const reopened = UsageOutbox.open(dir, limits, logger);
  expect(reopened.recovered).toEqual([]);
  reopened.outbox.close();
});

it('has no room at either bound, and room again once events are acknowledged', () => {
  const dir = freshDir();
  const { outbox } = UsageOutbox.open(dir, { maxRecords: 3, maxBytes: 1024 * 1024 }, logger);
  for (const id of ['a', 'b']) outbox.append(usageEvent(id));
  expect(outbox.hasRoom()).toBe(true);
  outbox.append(usageEvent('c'));
  expect(outbox.hasRoom()).toBe(false);
  outbox.acknowledge('a');
  expect(outbox.hasRoom()).toBe(true);
  outbox.close();

  const bytes = UsageOutbox.open(freshDir(), { maxRecords: 1000, maxBytes: 2048 }, logger).outbox;
  bytes.append({ ...usageEvent('big'), payload: { ...record('big', 1), content: 'y'.repeat(3000) } });
  expect(bytes.hasRoom()).toBe(false);
  bytes.close();
});

it('the publisher keeps events while the bus is away, refuses at the bound, and a restart publishes what was left first', async () => {
  const dir = freshDir();
  const bus = flakyBus();
  bus.down = true;
  const first = UsageOutbox.open(dir, { maxRecords: 5, maxBytes: 1024 * 1024 }, logger);
  const publisher = createUsagePublisher({ bus, logger, retryDelayMs: 10, outbox: first });
  for (const id of ['p1', 'p2', 'p3', 'p4', 'p5']) publisher.publish(record(id, 2));
  expect(publisher.accepting()).toBe(false);
  // This process stops without the bus ever coming back (its flush gives up), then a new one starts.
  await publisher.flush(50);
  first.outbox.close();

  bus.down = false;
  const second = UsageOutbox.open(dir, { maxRecords: 5, maxBytes: 1024 * 1024 }, logger);
  const restarted = createUsagePublisher({ bus, logger, retryDelayMs: 10, outbox: second });
  restarted.resume(new Set());
  restarted.publish(record('p6', 2));
  await restarted.flush(5_000);
  expect(bus.published.map((event) => event.id)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
  expect(second.outbox.pending.events).toBe(0);
  expect(restarted.accepting()).toBe(true);
  second.outbox.close();
});

it("a restart skips the checkpoint of a request whose hold the quota gate's start released (its record came from the hold)", async () => {
  const dir = freshDir();
  const first = UsageOutbox.open(dir, limits, logger);
  first.outbox.checkpoint(record('swept-by-start', 5));
  first.outbox.checkpoint(record('only-here', 7));
  first.outbox.close();
  const bus = flakyBus();
  const second = UsageOutbox.open(dir, limits, logger);
  const publisher = createUsagePublisher({ bus, logger, retryDelayMs: 10, outbox: second });
  publisher.resume(new Set(['swept-by-start']));
  await publisher.flush(5_000);
  expect(bus.published.map((event) => [event.id, (event.data as UsageRecord).quota])).toEqual([['only-here', 7]]);
  expect(second.outbox.pending.events).toBe(0);
  second.outbox.close();
  const third = UsageOutbox.open(dir, limits, logger);
  expect(third.recovered).toEqual([]);
  third.outbox.close();
});
