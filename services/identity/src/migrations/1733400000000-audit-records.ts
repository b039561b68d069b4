import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The audit trail's store (issue 22, item 13): one row per record, keyed by the record's id,
 * with an index per filter of GET /api/audit/ (each ending in the time, the order of the answer).
 */
export class AuditRecords1733400000000 implements MigrationInterface {
  name = 'AuditRecords1733400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'audit_records',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'time_ms', type: 'bigint', isNullable: false },
          { name: 'service', type: 'varchar', length: '16', isNullable: false },
          { name: 'actor_id', type: 'integer', isNullable: false },
          { name: 'actor_username', type: 'varchar', length: '64', isNullable: false },
          { name: 'actor_role', type: 'integer', isNullable: false },
          { name: 'action', type: 'varchar', length: '64', isNullable: false },
          { name: 'target_type', type: 'varchar', length: '32', isNullable: false },
          { name: 'target_id', type: 'varchar', length: '128', isNullable: false },
          { name: 'target_label', type: 'varchar', length: '255', isNullable: false },
          { name: 'before_values', type: 'text', isNullable: true },
          { name: 'after_values', type: 'text', isNullable: true },
          { name: 'ip', type: 'varchar', length: '64', isNullable: false },
        ],
      }),
    );
    const indexes: Array<[string, string[]]> = [
      ['audit_records_time', ['time_ms']],
      ['audit_records_actor', ['actor_id', 'time_ms']],
      ['audit_records_actor_username', ['actor_username']],
      ['audit_records_action', ['action', 'time_ms']],
      ['audit_records_target', ['target_type', 'target_id', 'time_ms']],
    ];
    for (const [name, columnNames] of indexes) await runner.createIndex('audit_records', new TableIndex({ name, columnNames }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('audit_records');
  }
}
