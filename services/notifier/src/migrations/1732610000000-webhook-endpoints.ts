import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

const { id, bigint, text, longText } = columns;

/** Root's webhook endpoints, on PostgreSQL and SQLite alike. */
export class NotifierWebhookEndpoints1732610000000 implements MigrationInterface {
  name = 'NotifierWebhookEndpoints1732610000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'webhook_endpoints',
        columns: [
          id(),
          text('url', 2048, undefined),
          { ...longText('subjects'), default: "'[]'" },
          text('description', 255),
          { name: 'enabled', type: 'boolean', isNullable: false, default: true },
          { ...longText('secret_encrypted'), default: undefined },
          bigint('created_at'),
          bigint('updated_at'),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('webhook_endpoints');
  }
}
