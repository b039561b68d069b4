import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { usernameKey } from '@aigw/contracts';

/**
 * Usernames unique regardless of case and width (issue 22.5), enforced by the database: a
 * `username_key` column (NFKC, case-folded) with a unique index, on PostgreSQL and SQLite alike.
 * Existing rows are keyed in id order. Where older names already clash by case ("Bob" and
 * "bob"), the first (lowest id) holds the key and the later ones keep a null key: both users
 * keep their names and sign in as before, nobody can take a third spelling (identity checks
 * null-key rows too), and renaming such a user gives them a key like anyone else's.
 */
export class UsernameKey1733300000000 implements MigrationInterface {
  name = 'UsernameKey1733300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('users', new TableColumn({ name: 'username_key', type: 'varchar', length: '255', isNullable: true }));
    const users: Array<{ id: number | string; username: string }> = await runner.manager
      .createQueryBuilder()
      .select(['id', 'username'])
      .from('users', 'users')
      .orderBy('id', 'ASC')
      .getRawMany();
    const taken = new Set<string>();
    for (const user of users) {
      const key = usernameKey(user.username);
      if (taken.has(key) || key.length > 255) continue; // a later clash by case keeps null
      taken.add(key);
      await runner.manager
        .createQueryBuilder()
        .update('users')
        .set({ username_key: key })
        .where('id = :id', { id: Number(user.id) })
        .execute();
    }
    await runner.createIndex('users', new TableIndex({ name: 'users_username_key_unique', columnNames: ['username_key'], isUnique: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('users', 'users_username_key_unique');
    await runner.dropColumn('users', 'username_key');
  }
}
