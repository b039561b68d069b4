import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase } from '@aigw/platform';
import type { TestEnvironment } from '@aigw/platform/testing';
import { billingEntities } from '../../src/entities/index';
import { billingMigrations } from '../../src/migrations/index';

/** A second connection to billing's own tables in a test environment, to arrange rows or check what was written. */
export function openBillingDatabase(env: TestEnvironment): Promise<DataSource> {
  return openDatabase({
    url: env.databaseUrl, dataDir: env.dataDir, schema: env.schema('billing'),
    entities: billingEntities, migrations: billingMigrations, logger: createSilentLogger(),
  });
}
