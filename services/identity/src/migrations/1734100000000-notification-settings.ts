import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

/**
 * A user's own notification settings (`PUT /api/user/setting`: JSON text, its secrets sealed; ''
 * for the defaults) and the WxPusher uid bound by QR code ('' unbound), beside the other bindings.
 */
export class NotificationSettings1734100000000 implements MigrationInterface {
  name = 'NotificationSettings1734100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('users', new TableColumn(columns.longText('notification_settings')));
    await runner.addColumn('users', new TableColumn({ name: 'wxpusher_uid', type: 'varchar', length: '64', isNullable: false, default: "''" }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('users', 'wxpusher_uid');
    await runner.dropColumn('users', 'notification_settings');
  }
}
