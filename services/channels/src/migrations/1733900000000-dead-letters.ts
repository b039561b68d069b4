import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@aigw/platform';

/** Where channels keeps the events its consumers gave up on, for root to replay (`channels_dead_letters`, packages/platform/src/dead-letters/). */
export class ChannelsDeadLetters1733900000000 implements MigrationInterface {
  name = 'ChannelsDeadLetters1733900000000';

  async up(runner: QueryRunner): Promise<void> {
    await createDeadLetterTable(runner, 'channels');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(runner, 'channels');
  }
}
