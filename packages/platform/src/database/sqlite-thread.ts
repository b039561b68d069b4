import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The all-in-one process's SQLite connection, owned by a worker thread (docs/architecture.md
 * section 4.2). better-sqlite3 is synchronous: on the main thread every statement, every commit
 * and every WAL checkpoint (which syncs the file to disk) stopped the relay's requests for as long
 * as it took. Here the main thread posts the SQL and goes on; the worker runs it and answers.
 *
 * One thread and one connection per database file, shared by every DataSource on it (all the
 * services of the process): statements run in the order they were posted, and transactions take
 * turns (`acquire`), since one connection has one transaction at a time.
 */
export interface SqliteAnswer {
  /** A statement that returns rows (SELECT, RETURNING): them. */
  rows?: unknown[];
  /** Otherwise: rows changed, and the last inserted row id. */
  changes?: number;
  lastInsertRowid?: number;
}

/** A statement SQLite refused: its message and code (`SQLITE_CONSTRAINT_UNIQUE`, ...), as better-sqlite3 gives them. */
export class SqliteError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

export interface SqliteThread {
  run(sql: string, parameters: unknown[]): Promise<SqliteAnswer>;
  /**
   * The connection's turn for `owner`, once every earlier turn ended; it lasts until the function
   * it resolves to is called, and meanwhile `blocking` holds every other owner's statements back.
   * Transactions of every DataSource on this file take turns here (data-source.ts), and so do
   * migrations, which run on TypeORM's own connection.
   */
  acquire(owner: object): Promise<() => void>;
  /** While another owner's turn is open: its end, to wait for before `owner` posts a statement. */
  blocking(owner: object): Promise<unknown> | undefined;
  /** One DataSource less; the thread stops with the last. */
  release: () => Promise<void>;
}

/** A statement as posted to the worker (the worker's own `Statement` is better-sqlite3's). */
type Posted = { id: number; sql: string; parameters: unknown[] };
type Answer = SqliteAnswer & { id: number; error?: { message: string; code?: string } };

const threads = new Map<string, { thread: SqliteThread; users: number }>();

/** The thread of `file`, started by its first user (after that user's migrations ran on TypeORM's own connection). */
export function sqliteThread(file: string, busyTimeoutMs: number): SqliteThread {
  const existing = threads.get(file);
  if (existing) {
    existing.users += 1;
    return existing.thread;
  }
  const entry = { thread: startThread(file, busyTimeoutMs, () => threads.delete(file)), users: 1 };
  threads.set(file, entry);
  const release = entry.thread.release;
  entry.thread.release = async () => {
    entry.users -= 1;
    if (entry.users === 0) await release();
  };
  return entry.thread;
}

function startThread(file: string, busyTimeoutMs: number, onStop: () => void): SqliteThread {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // The worker's code is the function below, as compiled: one file, whether run from dist or (tests) from sources.
  const worker = new Worker(`(${sqliteWorker.toString()})()`, {
    eval: true,
    workerData: { driver, file, busyTimeoutMs },
    resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 },
  });
  // The thread keeps the process alive only while an answer is awaited (an idle connection does not).
  worker.unref();
  const waiting = new Map<number, { resolve: (answer: SqliteAnswer) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let failure: Error | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let open: { owner: object; ended: Promise<unknown> } | undefined;
  const failAll = (error: Error) => {
    failure = error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  worker.on('message', (answers: Answer[]) => {
    for (const answer of answers) {
      const pending = waiting.get(answer.id);
      if (!pending) continue;
      waiting.delete(answer.id);
      if (answer.error) pending.reject(new SqliteError(answer.error.message, answer.error.code));
      else pending.resolve(answer);
    }
    if (waiting.size === 0) worker.unref();
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', () => {
    onStop();
    failAll(failure ?? new Error('the SQLite thread stopped'));
  });
  /**
   * Statements posted in one turn go as one message, and come back as one: a transaction's
   * independent statements are sent together (billing's usage batch), and each message costs both
   * threads a wake-up and the main thread a `message` event. Order is kept within and across
   * messages, so nothing else changes.
   */
  let outgoing: Posted[] = [];
  const send = () => {
    const statements = outgoing;
    outgoing = [];
    worker.postMessage(statements);
  };
  return {
    run(sql, parameters) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        if (waiting.size === 0) worker.ref();
        waiting.set(id, { resolve, reject });
        if (outgoing.push({ id, sql, parameters }) === 1) queueMicrotask(send);
      });
    },
    acquire(owner) {
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      const granted = tail.then(() => {
        open = { owner, ended };
        return () => {
          if (open?.owner === owner) open = undefined;
          end();
        };
      });
      tail = ended;
      return granted;
    },
    blocking(owner) {
      return open && open.owner !== owner ? open.ended : undefined;
    },
    release: async () => {
      onStop();
      await worker.terminate();
    },
  };
}

/**
 * Runs in the worker (plain JavaScript once compiled; it may use nothing from this module). It
 * opens the connection as TypeORM's driver does (foreign keys on, WAL, NORMAL sync: see
 * data-source.ts), keeps prepared statements, and answers each message (the statements posted
 * in one turn) with one message, in order.
 */
function sqliteWorker(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  const parentPort = threads.parentPort;
  const { driver, file, busyTimeoutMs } = threads.workerData as { driver: string; file: string; busyTimeoutMs: number };
  type Statement = {
    reader: boolean;
    all(...parameters: unknown[]): unknown[];
    run(...parameters: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  };
  type Connection = { pragma(source: string): unknown; prepare(sql: string): Statement };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Database = require(driver) as new (file: string, options: { timeout: number }) => Connection;
  const db = new Database(file, { timeout: busyTimeoutMs });
  // Below the event loop's priority (Linux: a thread has its own nice value): a statement posted
  // wakes this thread, which would otherwise take the CPU from the loop at once where the two
  // share one; the loop's requests come first, the statements in its gaps.
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fs = require('node:fs') as typeof import('node:fs');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const os = require('node:os') as typeof import('node:os');
    os.setPriority(Number(fs.readlinkSync('/proc/thread-self').split('/').pop()), 10);
  } catch {
    // Not Linux, or not allowed: the same priority as the loop.
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const statements = new Map<string, Statement>();
  /** The longest SQL kept prepared (a multi-row statement of some 70 rows; see below). */
  const MAX_CACHED_SQL = 4_000;
  const answer = ({ id, sql, parameters }: Posted): Answer => {
    try {
      let statement = statements.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        // A long statement is a batch's multi-row one (billing's usage batch: its text differs with
        // every batch size), rarely run twice and large compiled: 500 of them kept 160 MB of this
        // thread's memory after 20 s at full load. Not kept, it dies young and is finalized then.
        if (sql.length <= MAX_CACHED_SQL) {
          statements.set(sql, statement);
          // Oldest first out: a Map iterates in insertion order.
          if (statements.size > 500) statements.delete(statements.keys().next().value!);
        }
      }
      if (statement.reader) return { id, rows: statement.all(...parameters) };
      const { changes, lastInsertRowid } = statement.run(...parameters);
      return { id, changes, lastInsertRowid: Number(lastInsertRowid) };
    } catch (error) {
      const { message, code } = error as { message: string; code?: string };
      return { id, error: { message, code } };
    }
  };
  // Each statement of a message runs, in order, whatever the others did (a failure is its caller's to handle).
  parentPort!.on('message', (batch: Posted[]) => parentPort!.postMessage(batch.map(answer)));
}
