import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/** The console language a user last signed in or registered with ('' unknown): mails are written in it. */
export class UserLanguage1732700000000 implements MigrationInterface {
  name = 'UserLanguage1732700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('users', new TableColumn({ name: 'language', type: 'varchar', length: '16', isNullable: false, default: "''" }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('users', 'language');
  }
}
