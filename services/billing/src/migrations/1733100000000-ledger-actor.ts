import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Who made an admin balance change (issue 22.4), on PostgreSQL and SQLite alike; null on every other entry. */
export class LedgerActor1733100000000 implements MigrationInterface {
  name = 'LedgerActor1733100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('ledger_entries', new TableColumn({ name: 'actor_id', type: 'integer', isNullable: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('ledger_entries', 'actor_id');
  }
}
