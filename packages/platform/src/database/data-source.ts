import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { DataSource, type EntityManager, type EntitySchema, type MixedList } from 'typeorm';
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
  if (!options.url) serializeTransactions(dataSource);
  try {
    if (options.url) await migratePostgres(dataSource, options.schema);
    else await dataSource.runMigrations({ transaction: 'each' });
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
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

function sqlite(options: DatabaseOptions): DataSource {
  fs.mkdirSync(options.dataDir, { recursive: true });
  return new DataSource({
    type: 'better-sqlite3',
    database: path.join(options.dataDir, 'app.db'),
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: `${options.schema}_migrations`,
    enableWAL: true,
    // Several services share the file in the all-in-one process: wait for a writer instead of failing.
    timeout: 10_000,
    // In WAL mode NORMAL never corrupts and survives a process crash; only an OS crash may lose the
    // last commits. FULL would fsync on every commit, blocking the event loop for each usage record.
    prepareDatabase: (db: { pragma(statement: string): unknown }) => {
      db.pragma('synchronous = NORMAL');
    },
  });
}

/**
 * TypeORM's better-sqlite3 driver has one connection for everything. Two transactions begun
 * together would nest (or fail), and a statement from elsewhere run while a transaction is open
 * would become part of it, undone by its rollback. So on SQLite transactions take turns, and a
 * statement from outside the open transaction waits until it ends (SQLite allows one writer at
 * a time anyway). PostgreSQL gives each transaction its own connection and needs none of this.
 *
 * Whose statement it is comes from the query runner: the driver's single shared runner is
 * replaced by one per caller (all on the one connection, sharing one prepared-statement cache),
 * and a transaction runs on a runner of its own. No AsyncLocalStorage: on Node 20 it installs
 * promise hooks that tax every promise in the process, the relay's included (about 4% of its
 * CPU under load, measured with the bench's profile).
 */
function serializeTransactions(dataSource: DataSource): void {
  type Runner = ReturnType<DataSource['createQueryRunner']> & { stmtCache: Map<string, unknown> };
  const driver = dataSource.driver as unknown as { createQueryRunner(mode: string): Runner; queryRunner?: Runner };
  const shared = driver.createQueryRunner('master');
  const Runner = shared.constructor as new (driverArgument: unknown) => Runner;
  let tail: Promise<unknown> = Promise.resolve();
  let open: { runner: Runner; ended: Promise<unknown> } | undefined;

  const gated = (runner: Runner): Runner => {
    const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
    runner.query = (async (...args: unknown[]) => {
      while (open && open.runner !== runner) await open.ended;
      return query(...args);
    }) as typeof runner.query;
    return runner;
  };
  gated(shared);
  driver.createQueryRunner = () => {
    const runner = new Runner(driver);
    runner.stmtCache = shared.stmtCache;
    return gated(runner);
  };

  const manager = dataSource.manager;
  const begin = (runner: Runner, args: unknown[]) => {
    const own = runner.manager;
    return (own.transaction as (...args: unknown[]) => Promise<unknown>).apply(own, args);
  };
  manager.transaction = ((...args: unknown[]) => {
    const runner = dataSource.createQueryRunner() as Runner;
    const turn = tail.then(() => {
      const run = begin(runner, args).finally(() => runner.release());
      open = { runner, ended: run.catch(() => undefined) };
      return run.finally(() => {
        if (open?.runner === runner) open = undefined;
      });
    });
    tail = turn.catch(() => undefined);
    return turn;
  });
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
