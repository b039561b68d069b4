import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Second factors: TOTP secrets, backup codes and passkeys (PostgreSQL and SQLite alike). */
export class TwoFactor1733200000000 implements MigrationInterface {
  name = 'TwoFactor1733200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'user_two_factor',
        columns: [
          { name: 'user_id', type: 'integer', isPrimary: true },
          { name: 'secret_sealed', type: 'text', isNullable: false },
          { name: 'enabled', type: 'boolean', isNullable: false, default: false },
          { name: 'last_step', type: 'bigint', isNullable: false, default: 0 },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
      }),
    );

    await runner.createTable(
      new Table({
        name: 'user_backup_codes',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'user_id', type: 'integer', isNullable: false },
          { name: 'code_hash', type: 'varchar', length: '64', isNullable: false },
          { name: 'used_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
    await runner.createIndex('user_backup_codes', new TableIndex({ name: 'user_backup_codes_user_hash', columnNames: ['user_id', 'code_hash'] }));

    await runner.createTable(
      new Table({
        name: 'passkey_credentials',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'user_id', type: 'integer', isNullable: false },
          { name: 'credential_id', type: 'varchar', length: '1024', isNullable: false },
          { name: 'public_key', type: 'text', isNullable: false },
          { name: 'counter', type: 'bigint', isNullable: false, default: 0 },
          { name: 'transports', type: 'varchar', length: '255', isNullable: false, default: "'[]'" },
          { name: 'backed_up', type: 'boolean', isNullable: false, default: false },
          { name: 'name', type: 'varchar', length: '64', isNullable: false, default: "''" },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'last_used_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
    await runner.createIndex('passkey_credentials', new TableIndex({ name: 'passkey_credentials_user', columnNames: ['user_id'] }));
    await runner.createIndex('passkey_credentials', new TableIndex({ name: 'passkey_credentials_credential', columnNames: ['credential_id'], isUnique: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('passkey_credentials');
    await runner.dropTable('user_backup_codes');
    await runner.dropTable('user_two_factor');
  }
}
