import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase } from '@aigw/platform';
import type { Backend, TestEnvironment } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../../gateway/test/support/gateway';
import { billingEntities } from '../../src/entities/index';
import { billingMigrations } from '../../src/migrations/index';

/** A second connection to billing's own tables in a test environment, to arrange rows or check what was written. */
export function openBillingDatabase(env: TestEnvironment): Promise<DataSource> {
  return openDatabase({
    url: env.databaseUrl,
    dataDir: env.dataDir,
    schema: env.schema('billing'),
    entities: billingEntities,
    migrations: billingMigrations,
    logger: createSilentLogger(),
  });
}

/** A gateway, billing's tables, root and two registered users: the start of the log and dashboard tests. */
export async function startWithTwoUsers(backend: Backend): Promise<{ gateway: TestGateway; db: DataSource; root: Session; alice: Session; bob: Session }> {
  const gateway = await startGateway(backend);
  const db = await openBillingDatabase(gateway.env);
  const root = await gateway.login('root', ROOT_PASSWORD);
  for (const name of ['alice', 'bob']) {
    const registered = (await gateway.register(name, `${name}-pass`)).json();
    if (!registered.success) throw new Error(`registering ${name}: ${registered.message}`);
  }
  return { gateway, db, root, alice: await gateway.login('alice', 'alice-pass'), bob: await gateway.login('bob', 'bob-pass') };
}
