import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/** The owner's role, copied from identity's events: the relay lets only admins pin a channel. */
export class AccountRole1732500000000 implements MigrationInterface {
  name = 'AccountRole1732500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('accounts', new TableColumn({ name: 'role', type: 'integer', isNullable: false, default: 1 }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('accounts', 'role');
  }
}
