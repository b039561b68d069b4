import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { testServices, uniqueName } from '../src/testing/services';
import { defineDatabaseContract } from './contracts/database.contract';

defineDatabaseContract('SQLite', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-db-'));
  return { dataDir, schema: 'contract', cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
});

defineDatabaseContract('PostgreSQL', async () => {
  const { databaseUrl } = await testServices();
  const schema = uniqueName('db').toLowerCase();
  return {
    url: databaseUrl,
    dataDir: os.tmpdir(),
    schema,
    async cleanup() {
      const admin = new DataSource({ type: 'postgres', url: databaseUrl });
      await admin.initialize();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.destroy();
    },
  };
});
