import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/** The `sub` of a user's OIDC account ('' when not bound), beside the other third-party bindings. */
export class UserOidcId1732800000000 implements MigrationInterface {
  name = 'UserOidcId1732800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('users', new TableColumn({ name: 'oidc_id', type: 'varchar', length: '64', isNullable: false, default: "''" }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('users', 'oidc_id');
  }
}
