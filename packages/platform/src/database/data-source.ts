import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { DataSource, QueryFailedError, QueryResult, type EntityManager, type EntitySchema, type MixedList } from 'typeorm';
import { sqliteThread, type SqliteAnswer, type SqliteThread } from './sqlite-thread.js';
import type { Logger } from '../logger.js';

/**
 * The Database port: a TypeORM DataSource on PostgreSQL when a URL is given (one schema per
 * service), else on SQLite (better-sqlite3, WAL) at DATA_DIR/app.db shared by all services of
 * the all-in-one process. Schema changes are migrations, written with the QueryRunner API so the
 * same migration runs on both, and applied at start.
 */
export interface DatabaseOptions {
  /** PostgreSQL URL; SQLite when absent. */
  url?: string;
  /** Folder of the SQLite file. */
  dataDir: string;
  /** The owning service's name: PostgreSQL schema, and migration table name on SQLite. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  logger: Logger;
  /** PostgreSQL pool size per process. */
  poolSize?: number;
}

const identifier = /^[a-z_][a-z0-9_]{0,62}$/;

export function isPostgres(dataSource: DataSource): boolean {
  return dataSource.options.type === 'postgres';
}

/** Opens the database and applies pending migrations (serialized between replicas on PostgreSQL). */
export async function openDatabase(options: DatabaseOptions): Promise<DataSource> {
  if (!identifier.test(options.schema)) throw new Error(`database schema name '${options.schema}' is not a valid identifier`);
  const dataSource = options.url ? postgres(options) : sqlite(options);
  await dataSource.initialize();
  const thread = options.url ? undefined : sqliteThread(sqliteFile(options.dataDir), SQLITE_BUSY_TIMEOUT_MS);
  try {
    if (options.url) await migratePostgres(dataSource, options.schema);
    // On TypeORM's own connection, alone: what the thread was given runs first, and its next
    // statements wait (another writer between a migration's read and its write would fail it at
    // once with SQLITE_BUSY).
    else await migrateAlone(dataSource, thread!);
  } catch (error) {
    await thread?.release();
    await dataSource.destroy();
    throw error;
  }
  if (thread) onThread(dataSource, thread);
  options.logger.debug({ schema: options.schema, type: dataSource.options.type }, 'database ready');
  return dataSource;
}

function postgres(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    // Unqualified names resolve to the service's own schema, in queries and migrations alike.
    extra: { options: `-c search_path=${options.schema}`, max: options.poolSize ?? 10 },
  });
}

/** How long a statement waits for another connection's write (a migrating service at start). */
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

const sqliteFile = (dataDir: string) => path.resolve(dataDir, 'app.db');

function sqlite(options: DatabaseOptions): DataSource {
  fs.mkdirSync(options.dataDir, { recursive: true });
  return new DataSource({
    type: 'better-sqlite3',
    database: sqliteFile(options.dataDir),
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: `${options.schema}_migrations`,
    enableWAL: true,
    // Used for migrations only (then the thread's connection): wait for a writer instead of failing.
    timeout: SQLITE_BUSY_TIMEOUT_MS,
    // In WAL mode NORMAL never corrupts and survives a process crash; only an OS crash may lose the
    // last commits. FULL would fsync on every commit (the thread's connection does the same).
    prepareDatabase: (db: { pragma(statement: string): unknown }) => {
      db.pragma('synchronous = NORMAL');
    },
  });
}

/**
 * On SQLite the process has one connection per file, in a worker thread (sqlite-thread.ts): after
 * TypeORM's migrations (on its own connection, at start), every statement of this DataSource is
 * posted to that thread. So the relay's event loop never waits for SQL, a commit or a WAL
 * checkpoint (docs/architecture.md section 4.2).
 *
 * One connection for every service: two transactions begun together would nest (or fail), and a
 * statement from elsewhere run while a transaction is open would become part of it, undone by its
 * rollback. So transactions take turns (the thread's `acquire`, shared by its DataSources), and a
 * statement from outside the open transaction waits until it ends (SQLite allows one writer at a
 * time anyway). PostgreSQL gives each transaction its own connection and needs none of this.
 *
 * Whose statement it is comes from the query runner: TypeORM's single shared runner is replaced by
 * one per caller, and a transaction runs on a runner of its own. No AsyncLocalStorage: on Node 20
 * it installs promise hooks that tax every promise in the process, the relay's included (about 4%
 * of its CPU under load, measured with the bench's profile).
 */
function onThread(dataSource: DataSource, thread: SqliteThread): void {
  type Runner = ReturnType<DataSource['createQueryRunner']>;
  const driver = dataSource.driver as unknown as { createQueryRunner(mode: string): Runner };
  const Runner = driver.createQueryRunner('master').constructor as new (driverArgument: unknown) => Runner;

  driver.createQueryRunner = () => {
    const runner = new Runner(driver);
    runner.query = (async (sql: string, parameters: unknown[] = [], structured = false) => {
      for (let open = thread.blocking(runner); open; open = thread.blocking(runner)) await open;
      // Posted in the same tick as the last check: the thread runs statements in the order posted.
      const bound = parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
      let answer: SqliteAnswer;
      try {
        answer = await thread.run(sql, bound);
      } catch (error) {
        throw new QueryFailedError(sql, bound, error as Error);
      }
      // The shapes TypeORM's own better-sqlite3 runner returns.
      const result = new QueryResult();
      if (answer.rows) result.raw = result.records = answer.rows;
      else [result.affected, result.raw] = [answer.changes, answer.lastInsertRowid];
      return (structured ? result : result.raw) as unknown;
    }) as Runner['query'];
    return inTurns(runner);
  };

  /**
   * A transaction holds the connection's turn from its BEGIN to its COMMIT or ROLLBACK, however it
   * was begun: `manager.transaction`, or TypeORM's own around a save.
   */
  const inTurns = (runner: Runner): Runner => {
    const [start, commit, rollback] = [runner.startTransaction.bind(runner), runner.commitTransaction.bind(runner), runner.rollbackTransaction.bind(runner)];
    let endTurn: (() => void) | undefined;
    const ended = () => {
      if (runner.isTransactionActive || !endTurn) return;
      endTurn();
      endTurn = undefined;
    };
    runner.startTransaction = async (level) => {
      endTurn ??= await thread.acquire(runner);
      await start(level).catch((error: unknown) => {
        ended();
        throw error;
      });
    };
    runner.commitTransaction = () => commit().finally(ended);
    runner.rollbackTransaction = () => rollback().finally(ended);
    return runner;
  };

  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = async () => {
    await thread.release();
    await destroy();
  };
}

async function migrateAlone(dataSource: DataSource, thread: SqliteThread): Promise<void> {
  const end = await thread.acquire({});
  try {
    await thread.run('SELECT 1', []); // what the thread was given before runs first
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    end();
  }
}

async function migratePostgres(dataSource: DataSource, schema: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    // One replica migrates at a time; the others wait, then find nothing pending.
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`aigw.migrate.${schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`aigw.migrate.${schema}`]).catch(() => undefined);
    await runner.release();
  }
}

/** True when the error is a unique-constraint violation on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: string; driverError?: { code?: string } };
  const code = candidate?.driverError?.code ?? candidate?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Text for a bound LIKE pattern in which `%`, `_` and `\` match themselves; use with `ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** The n-th (1-based) bind parameter in raw SQL: `$n` on PostgreSQL, `?` on SQLite. Always bind, never splice (rule R6). */
export function param(dataSource: DataSource, index: number): string {
  return isPostgres(dataSource) ? `$${index}` : '?';
}

/**
 * Raw SQL returning rows (RETURNING included) in the same shape on both databases; TypeORM's
 * own `query` wraps UPDATE/DELETE results differently per driver. Inside a transaction pass
 * its EntityManager.
 */
export async function queryRows<T>(target: DataSource | EntityManager, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const manager = target instanceof DataSource ? target.manager : target;
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = await runner.query(sql, parameters, true);
    return result.records as T[];
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}
