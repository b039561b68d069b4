import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

const { id, integer, bigint, text, longText, flag } = columns;

/** The async tasks of every platform (issue 13), on PostgreSQL and SQLite alike. */
export class RelayTasks1733500000000 implements MigrationInterface {
  name = 'RelayTasks1733500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'tasks',
        columns: [
          id(),
          text('platform', 32, undefined),
          integer('user_id'),
          integer('token_id', 0),
          integer('channel_id', 0),
          text('action', 32, undefined),
          text('task_id', 128),
          integer('code', 0),
          text('status', 20, "'NOT_START'"),
          text('progress', 20),
          longText('prompt'),
          longText('prompt_en'),
          longText('description'),
          text('image_url', 2048),
          longText('data'),
          longText('buttons'),
          longText('properties'),
          longText('fail_reason'),
          bigint('quota', 0),
          bigint('submit_time', 0),
          bigint('start_time', 0),
          bigint('finish_time', 0),
          flag('refunded'),
          bigint('created_at'),
          bigint('updated_at'),
        ],
      }),
    );
    // One row per upstream task; a task the upstream has not accepted yet has no id.
    await runner.createIndex(
      'tasks',
      new TableIndex({ name: 'tasks_platform_task_id', columnNames: ['platform', 'task_id'], isUnique: true, where: "task_id <> ''" }),
    );
    // The console's lists (own tasks; an admin's channel filter), newest first; the poller's unfinished tasks.
    await runner.createIndex('tasks', new TableIndex({ name: 'tasks_user_submit', columnNames: ['user_id', 'submit_time'] }));
    await runner.createIndex('tasks', new TableIndex({ name: 'tasks_channel_submit', columnNames: ['channel_id', 'submit_time'] }));
    await runner.createIndex('tasks', new TableIndex({ name: 'tasks_platform_status', columnNames: ['platform', 'status'] }));
    // An admin's unfiltered list: newest first without sorting the table.
    await runner.createIndex('tasks', new TableIndex({ name: 'tasks_submit', columnNames: ['submit_time'] }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('tasks');
  }
}
