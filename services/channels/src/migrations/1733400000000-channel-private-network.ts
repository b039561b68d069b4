import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The per-channel private-network flag (issue 22.10, rule R2), on PostgreSQL and SQLite alike.
 * Existing channels get null: channels cannot read identity's options from a migration, so at
 * start it gives them root's AllowPrivateNetworkUpstreams as it is then (what they obeyed until
 * now), once and audit-logged. New channels always get true or false.
 */
export class ChannelPrivateNetwork1733400000000 implements MigrationInterface {
  name = 'ChannelPrivateNetwork1733400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('channels', new TableColumn({ name: 'allow_private_network', type: 'boolean', isNullable: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('channels', 'allow_private_network');
  }
}
