import fs from 'node:fs';
import path from 'node:path';
import { eventSchemas, type UsageRecord } from '@aigw/contracts';
import type { Logger } from '@aigw/platform';

/**
 * The relay's durable usage outbox (docs/architecture.md section 5.4): every money event is
 * appended to a local file before the relay forgets its request, published from memory, and
 * marked done only once the bus acknowledged it. A relay killed while the bus was away (or, on
 * the in-process bus, before billing committed) finds what was not acknowledged when it starts
 * again and publishes it; a replay is harmless, as the event id is the request id and billing's
 * unique key. A stream's checkpoints (what it had delivered) are kept here too: a relay killed
 * mid-stream publishes the last one as the request's record when it starts again.
 *
 * The file is append-only JSON lines in segments: `{"e":event}` an event, `{"a":id}` its
 * acknowledgement, `{"c":record}` a checkpoint. A segment whose every line is done is deleted
 * once a newer one is being written. A charged request's record is written as its checkpoint
 * before its hold is settled (relay-call.ts, `keepBeforeSettle`) and then published as it is:
 * that line stands for the event too (a restart publishes a checkpoint with no acknowledgement
 * as the record), so the record is not serialized and written a second time. The lines appended
 * in one turn of the event loop are written together at its end, in one synchronous write
 * (`written()` resolves then; the page cache survives a killed process; no fsync per request: a
 * machine crash is the stream replicas' concern, as it is JetStream's). At 32 requests in flight
 * the all-in-one relay appended about 20 lines per turn, each its own system call before.
 * Acknowledgements are written in batches, since a lost one only replays.
 */

export type OutboxSubject = 'relay.usage.recorded' | 'relay.request.started';

export interface OutboxEvent {
  /** The bus event id (the request id, or `started-<request id>`): the dedupe key downstream. */
  id: string;
  subject: OutboxSubject;
  payload: unknown;
  /** The request's W3C traceparent, when tracing is on (kept so a republished record still links to its trace). */
  trace?: string;
  /** Recovered from a checkpoint of a request that never finished (not an event that was written). */
  fromCheckpoint?: true;
}

export interface OutboxLimits {
  /** Events not yet acknowledged at most (USAGE_OUTBOX_MAX_RECORDS). */
  maxRecords: number;
  /** Bytes of those events at most (USAGE_OUTBOX_MAX_BYTES). */
  maxBytes: number;
}

/** A segment is closed and a new one begun past this size. */
const SEGMENT_BYTES = 8 * 1024 * 1024;
/** How often acknowledgements are written. */
const ACK_FLUSH_MS = 50;

interface Segment {
  file: string;
  /** Lines still needed: event ids not acknowledged, `c:<request id>` checkpoints not superseded. */
  live: Set<string>;
}

type Line = { e: OutboxEvent } | { a: string } | { c: UsageRecord };

export class UsageOutbox {
  private readonly segments: Segment[] = [];
  /** Which segment holds each live line and its byte size; for a checkpoint, its record. */
  private readonly where = new Map<string, { segment: Segment; bytes: number; record?: UsageRecord }>();
  private fd = -1;
  /** Bytes written to the segment being written. */
  private segmentBytes = 0;
  private pendingBytes = 0;
  private pendingEvents = 0;
  private acks: string[] = [];
  private flusher: NodeJS.Timeout | undefined;
  /** Lines appended this turn, not written yet, and their bytes. */
  private buffered: string[] = [];
  private bufferedBytes = 0;
  private flushDue = false;
  /** Callers of written() waiting for the buffered lines. */
  private waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private nextSegment = 0;

  private constructor(
    private readonly dir: string,
    private readonly limits: OutboxLimits,
    private readonly logger: Logger,
  ) {}

  /**
   * Opens the outbox in `dir` (created when missing), taking it for this process, and returns the
   * events a previous process left unacknowledged (checkpoints of streams it never finished
   * become their usage records), in the order they were written. They are carried into a fresh
   * segment at once, so the old files go.
   */
  static open(dir: string, limits: OutboxLimits, logger: Logger): { outbox: UsageOutbox; recovered: OutboxEvent[] } {
    fs.mkdirSync(dir, { recursive: true });
    takeLock(dir);
    const outbox = new UsageOutbox(dir, limits, logger);
    const old = segmentFiles(dir);
    const recovered = readLeftovers(
      old.map((file) => path.join(dir, file)),
      logger,
    );
    outbox.nextSegment = old.length > 0 ? segmentNumber(old[old.length - 1]!) + 1 : 0;
    outbox.startSegment();
    for (const event of recovered) outbox.append(event);
    // Written before the old files go.
    outbox.flush();
    for (const file of old) fs.rmSync(path.join(dir, file), { force: true });
    if (recovered.length > 0) logger.warn({ events: recovered.length }, 'usage outbox: events a previous process left unpublished are published again');
    return { outbox, recovered };
  }

  /** Whether another event may be taken: false while the unacknowledged ones reach either bound. */
  hasRoom(): boolean {
    return this.pendingEvents < this.limits.maxRecords && this.pendingBytes < this.limits.maxBytes;
  }

  get pending(): { events: number; bytes: number } {
    return { events: this.pendingEvents, bytes: this.pendingBytes };
  }

  /** Keeps an event until `acknowledge(id)`. A usage record supersedes its request's checkpoint. */
  append(event: OutboxEvent): void {
    if (this.where.has(event.id)) return;
    const checkpointKey = `c:${event.id}`;
    const checkpoint = event.subject === 'relay.usage.recorded' ? this.where.get(checkpointKey) : undefined;
    if (checkpoint) this.drop(checkpointKey);
    let bytes: number;
    if (checkpoint && checkpoint.record === event.payload) {
      // Its checkpoint is this very record: that line is the event's (see above).
      bytes = checkpoint.bytes;
      this.keep(event.id, bytes, undefined, checkpoint.segment);
    } else {
      bytes = this.write({ e: event });
      this.keep(event.id, bytes);
    }
    this.pendingEvents += 1;
    this.pendingBytes += bytes;
  }

  /** Keeps the latest checkpoint of a running stream (what it delivered so far, as its usage record). */
  checkpoint(record: UsageRecord): void {
    const key = `c:${record.request_id}`;
    this.drop(key);
    this.keep(key, this.write({ c: record }), record);
  }

  /**
   * Resolves once every line appended so far is written (a killed process keeps it); rejects when
   * the write failed. What must be kept before money moves (a record before its hold is settled)
   * waits for this.
   */
  written(): Promise<void> {
    if (this.buffered.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** The bus stored the event: its line is done (written with the next batch). */
  acknowledge(id: string): void {
    const kept = this.where.get(id);
    if (!kept) return;
    this.pendingEvents -= 1;
    this.pendingBytes -= kept.bytes;
    this.drop(id);
    this.acks.push(id);
    this.flusher ??= setTimeout(() => this.flushAcks(), ACK_FLUSH_MS);
  }

  /** Writes what is buffered and lets the file go (what is pending stays for the next process). */
  close(): void {
    this.flushAcks();
    this.flush();
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    fs.rmSync(path.join(this.dir, 'lock'), { force: true });
    openHere.delete(path.resolve(this.dir));
  }

  private flushAcks(): void {
    clearTimeout(this.flusher);
    this.flusher = undefined;
    if (this.acks.length === 0 || this.fd < 0) return;
    const lines = this.acks.map((id) => JSON.stringify({ a: id } satisfies Line)).join('\n') + '\n';
    this.acks = [];
    this.buffer(lines, Buffer.byteLength(lines));
    this.flush();
    this.collect();
  }

  /** `segment`: where the line is, when not the one being written. */
  private keep(key: string, bytes: number, record?: UsageRecord, segment = this.segments[this.segments.length - 1]!): void {
    segment.live.add(key);
    this.where.set(key, record ? { segment, bytes, record } : { segment, bytes });
  }

  private drop(key: string): void {
    const kept = this.where.get(key);
    if (!kept) return;
    this.where.delete(key);
    kept.segment.live.delete(key);
  }

  /** Deletes closed segments with nothing live left (their acknowledgements were written). */
  private collect(): void {
    while (this.segments.length > 1 && this.segments[0]!.live.size === 0) {
      fs.rmSync(this.segments.shift()!.file, { force: true });
    }
  }

  /** Appends a line (written at the end of this turn); returns its bytes. */
  private write(line: Line): number {
    const text = JSON.stringify(line) + '\n';
    const bytes = Buffer.byteLength(text);
    this.buffer(text, bytes);
    return bytes;
  }

  private buffer(text: string, bytes: number): void {
    // A full segment is closed first: a line is in the segment that was current when it was appended (keep()).
    if (this.segmentBytes + this.bufferedBytes >= SEGMENT_BYTES) {
      this.flush();
      this.startSegment();
    }
    this.buffered.push(text);
    this.bufferedBytes += bytes;
    if (this.flushDue) return;
    this.flushDue = true;
    setImmediate(() => {
      this.flushDue = false;
      this.flush();
    });
  }

  /** Writes the buffered lines in one synchronous write: once it returned, a killed process cannot lose them. */
  private flush(): void {
    if (this.buffered.length === 0 || this.fd < 0) return;
    const text = this.buffered.length === 1 ? this.buffered[0]! : this.buffered.join('');
    const waiting = this.waiting;
    this.buffered = [];
    this.bufferedBytes = 0;
    this.waiting = [];
    try {
      this.segmentBytes += fs.writeSync(this.fd, text);
    } catch (error) {
      // Nobody may be waiting (an unfinished request's checkpoint): said here, then to whoever waits.
      this.logger.error({ err: error, dir: this.dir }, 'usage outbox: lines not written');
      for (const { reject } of waiting) reject(error);
      return;
    }
    for (const { resolve } of waiting) resolve();
  }

  private startSegment(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    const file = path.join(this.dir, `segment-${String(this.nextSegment++).padStart(8, '0')}.jsonl`);
    this.fd = fs.openSync(file, 'a');
    this.segmentBytes = 0;
    this.segments.push({ file, live: new Set() });
  }
}

/** Outboxes open in this process (two relays of one process must not share one either). */
const openHere = new Set<string>();

/** One relay per outbox: a second on the same DATA_DIR and INSTANCE_NAME is refused; a dead holder's lock is taken over. */
function takeLock(dir: string): void {
  const resolved = path.resolve(dir);
  if (openHere.has(resolved)) throw new Error(`the usage outbox in ${dir} is already open in this process; give each relay its own INSTANCE_NAME or DATA_DIR`);
  const lock = path.join(dir, 'lock');
  const holder = Number(fs.existsSync(lock) ? fs.readFileSync(lock, 'utf8') : NaN);
  if (Number.isSafeInteger(holder) && holder !== process.pid && isAlive(holder)) {
    throw new Error(`the usage outbox in ${dir} is in use by process ${holder}; give each relay its own INSTANCE_NAME or DATA_DIR`);
  }
  fs.writeFileSync(lock, String(process.pid));
  openHere.add(resolved);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function segmentFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((file) => /^segment-\d+\.jsonl$/.test(file))
    .sort((a, b) => segmentNumber(a) - segmentNumber(b));
}

function segmentNumber(file: string): number {
  return Number(/\d+/.exec(file)![0]);
}

/** The events of `files` never acknowledged, then the checkpoints of requests with no record, as records. */
function readLeftovers(files: string[], logger: Logger): OutboxEvent[] {
  const events = new Map<string, OutboxEvent>();
  const checkpoints = new Map<string, UsageRecord>();
  const done = new Set<string>();
  for (const file of files) {
    for (const text of fs.readFileSync(file, 'utf8').split('\n')) {
      if (text === '') continue;
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        // Only a line cut by a machine crash can be torn: the last of its file.
        logger.warn({ file }, 'usage outbox: an unreadable line skipped');
        continue;
      }
      if ('e' in line) {
        if (!done.has(line.e.id)) events.set(line.e.id, line.e);
        if (line.e.subject === 'relay.usage.recorded') checkpoints.delete(line.e.id);
      } else if ('a' in line) {
        // An acknowledged record may have been written as its checkpoint only.
        events.delete(line.a);
        checkpoints.delete(line.a);
        done.add(line.a);
      } else if (!events.has(line.c.request_id) && !done.has(line.c.request_id)) {
        checkpoints.set(line.c.request_id, line.c);
      }
    }
  }
  const records: OutboxEvent[] = [...checkpoints.values()].map((record) => ({
    id: record.request_id,
    subject: 'relay.usage.recorded',
    payload: record,
    fromCheckpoint: true,
  }));
  // Parsed here, where they come back into the process (the publisher sends what it is given as it
  // is): one failing its schema could never be recorded, and would hold up every event behind it.
  return [...events.values(), ...records].filter((event) => {
    const parsed = eventSchemas[event.subject].safeParse(event.payload);
    if (parsed.success) event.payload = parsed.data;
    else logger.error({ id: event.id, subject: event.subject, issues: parsed.error.issues }, 'usage outbox: an event failing its schema dropped');
    return parsed.success;
  });
}
