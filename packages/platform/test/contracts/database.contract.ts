import { Column, Entity, PrimaryGeneratedColumn, Table, type DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createSilentLogger } from '../../src/logger';
import { isUniqueViolation, openDatabase, param, queryRows, type DatabaseOptions } from '../../src/database/data-source';

@Entity({ name: 'contract_items' })
class Item {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 32, unique: true })
  name: string;

  @Column({ type: 'bigint', transformer: { to: (value: number) => value, from: (value: string | number) => Number(value) } })
  amount: number;
}

class CreateItems1700000000000 implements MigrationInterface {
  name = 'CreateItems1700000000000';
  async up(runner: QueryRunner) {
    await runner.createTable(
      new Table({
        name: 'contract_items',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'name', type: 'varchar', length: '32', isUnique: true },
          { name: 'amount', type: 'bigint', isNullable: false },
        ],
      }),
    );
  }
  async down(runner: QueryRunner) {
    await runner.dropTable('contract_items');
  }
}

export type DatabaseTarget = Pick<DatabaseOptions, 'url' | 'dataDir' | 'schema'> & { cleanup(): Promise<void> };

/** The Database port's contract: both adapters (PostgreSQL, SQLite) must pass it. */
export function defineDatabaseContract(name: string, target: () => Promise<DatabaseTarget>) {
  describe(`Database contract: ${name}`, () => {
    let settings: DatabaseTarget;
    let db: DataSource;
    const open = () => openDatabase({ ...settings, entities: [Item], migrations: [CreateItems1700000000000], logger: createSilentLogger() });

    beforeAll(async () => {
      settings = await target();
      db = await open();
    });
    afterAll(async () => {
      await db?.destroy();
      await settings?.cleanup();
    });

    it('runs migrations at open, once, and again is a no-op', async () => {
      expect(await db.showMigrations()).toBe(false);
      const second = await open();
      expect(await second.showMigrations()).toBe(false);
      await second.destroy();
    });

    it('stores and reads entities; bigint columns come back as numbers beyond 2^31', async () => {
      const saved = await db.getRepository(Item).save({ name: 'first', amount: 2 ** 40 });
      expect(await db.getRepository(Item).findOneByOrFail({ id: saved.id })).toEqual({ id: saved.id, name: 'first', amount: 2 ** 40 });
    });

    it('recognises unique violations', async () => {
      const error = await db
        .getRepository(Item)
        .insert({ name: 'first', amount: 1 })
        .catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
      expect(isUniqueViolation(new Error('other'))).toBe(false);
    });

    it('binds raw parameters with the right placeholder', async () => {
      const rows = await queryRows<{ amount: number | string }>(
        db,
        `UPDATE contract_items SET amount = amount + ${param(db, 1)} WHERE name = ${param(db, 2)} RETURNING amount`,
        [5, 'first'],
      );
      expect(Number(rows[0]!.amount)).toBe(2 ** 40 + 5);
    });

    it('runs a long multi-row statement again and again (one too long to keep prepared)', async () => {
      // 400 rows of 3 parameters: over 4,000 characters of SQL, as a large usage batch's.
      const rows = 400;
      for (const round of [1, 2, 3]) {
        const values = Array.from(
          { length: rows },
          (_, row) => `(${param(db, 3 * row + 1)}, CAST(${param(db, 3 * row + 2)} AS INTEGER), ${param(db, 3 * row + 3)})`,
        );
        const parameters = Array.from({ length: rows }, (_, row) => [`long-${round}-${row}`, round * 1_000 + row, row]).flat();
        const sql = `WITH batch(a, b, c) AS (VALUES ${values.join(', ')}) SELECT COUNT(*) AS n, SUM(b) AS total FROM batch`;
        expect(sql.length).toBeGreaterThan(4_000);
        const [row] = await queryRows<{ n: number | string; total: number | string }>(db, sql, parameters);
        expect({ n: Number(row!.n), total: Number(row!.total) }).toEqual({ n: rows, total: rows * round * 1_000 + ((rows - 1) * rows) / 2 });
      }
    });

    it('rolls a failed transaction back entirely', async () => {
      await expect(
        db.transaction(async (manager) => {
          await manager.insert(Item, { name: 'in-tx', amount: 1 });
          await manager.insert(Item, { name: 'first', amount: 1 });
        }),
      ).rejects.toBeDefined();
      expect(await db.getRepository(Item).existsBy({ name: 'in-tx' })).toBe(false);
    });

    it('serializes concurrent increments inside transactions', async () => {
      const { id } = await db.getRepository(Item).save({ name: 'counter', amount: 0 });
      await Promise.all(Array.from({ length: 20 }, () => db.query(`UPDATE contract_items SET amount = amount + 1 WHERE id = ${param(db, 1)}`, [id])));
      expect((await db.getRepository(Item).findOneByOrFail({ id })).amount).toBe(20);
    });

    it('runs concurrent transactions side by side without mixing them', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) =>
          db.transaction(async (manager) => {
            await manager.insert(Item, { name: `tx-${index}`, amount: index });
            await new Promise((resolve) => setTimeout(resolve, 5)); // a turn of the event loop inside
            if (index % 2) throw new Error('roll this one back');
            await manager.increment(Item, { name: `tx-${index}` }, 'amount', 100);
          }),
        ),
      );
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
      const rows = await db.getRepository(Item).createQueryBuilder('item').where("item.name LIKE 'tx-%'").orderBy('item.amount').getMany();
      expect(rows.map((row) => [row.name, row.amount])).toEqual([
        ['tx-0', 100],
        ['tx-2', 102],
        ['tx-4', 104],
        ['tx-6', 106],
        ['tx-8', 108],
      ]);
    });

    it('keeps a write made elsewhere while a transaction is open, even when that transaction rolls back', async () => {
      let inside!: () => void;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const failing = db.transaction(async (manager) => {
        await manager.insert(Item, { name: 'doomed', amount: 1 });
        inside();
        await new Promise((resolve) => setTimeout(resolve, 20)); // the transaction stays open a moment: the scenario, not a wait
        throw new Error('roll back');
      });
      await entered;
      await db.getRepository(Item).insert({ name: 'bystander', amount: 1 });
      await expect(failing).rejects.toThrow('roll back');
      expect(await db.getRepository(Item).existsBy({ name: 'bystander' })).toBe(true);
      expect(await db.getRepository(Item).existsBy({ name: 'doomed' })).toBe(false);
    });

    it('keeps the transactions and writes of two DataSources on one database apart (the all-in-one services share it)', async () => {
      const other = await open();
      try {
        let inside!: () => void;
        const entered = new Promise<void>((resolve) => (inside = resolve));
        const failing = db.transaction(async (manager) => {
          await manager.insert(Item, { name: 'doomed-2', amount: 1 });
          inside();
          await new Promise((resolve) => setTimeout(resolve, 20)); // the transaction stays open a moment: the scenario, not a wait
          throw new Error('roll back');
        });
        await entered;
        const [written] = await Promise.all([
          other.getRepository(Item).insert({ name: 'bystander-2', amount: 1 }),
          other.transaction((manager) => manager.insert(Item, { name: 'committed-2', amount: 1 })),
        ]);
        expect(written.identifiers).toHaveLength(1);
        await expect(failing).rejects.toThrow('roll back');
        expect(await db.getRepository(Item).existsBy({ name: 'bystander-2' })).toBe(true);
        expect(await db.getRepository(Item).existsBy({ name: 'committed-2' })).toBe(true);
        expect(await db.getRepository(Item).existsBy({ name: 'doomed-2' })).toBe(false);
      } finally {
        await other.destroy();
      }
    });

    it("runs many saves at once, each in TypeORM's own transaction, a failing one undoing only itself", async () => {
      const repository = db.getRepository(Item);
      await repository.save({ name: 'save-taken', amount: 1 });
      const saves = Array.from({ length: 30 }, (_, index) => repository.save({ name: index === 7 ? 'save-taken' : `save-${index}`, amount: index }));
      const results = await Promise.allSettled(saves);
      expect(results.filter((result) => result.status === 'rejected')).toHaveLength(1);
      expect(isUniqueViolation((results[7] as PromiseRejectedResult).reason)).toBe(true);
      const [row] = await queryRows<{ n: number | string }>(db, "SELECT count(*) AS n FROM contract_items WHERE name LIKE 'save-%'");
      expect(Number(row!.n)).toBe(30);
    });

    it('never stops the event loop while a statement runs', async () => {
      let ticks = 0;
      const timer = setInterval(() => (ticks += 1), 5);
      try {
        const [row] = await queryRows<{ n: number | string }>(
          db,
          'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) AS n FROM c',
        );
        expect(Number(row!.n)).toBe(2_000_000);
      } finally {
        clearInterval(timer);
      }
      // Two million rows take a few hundred milliseconds: on the event loop, no timer could fire meanwhile.
      expect(ticks).toBeGreaterThan(5);
    });

    it('refuses a schema name that is not an identifier', async () => {
      await expect(openDatabase({ ...settings, schema: 'bad;drop', entities: [Item], migrations: [], logger: createSilentLogger() })).rejects.toThrow(
        /not a valid identifier/,
      );
    });
  });
}
