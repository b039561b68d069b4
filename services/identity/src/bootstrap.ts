import { Role } from '@aigw/contracts';
import { UserError, type Bus, type Logger } from '@aigw/platform';
import type { DataSource } from 'typeorm';
import { UserEntity } from './entities/user.entity.js';
import { DEFAULT_ROOT_PASSWORD, hashPassword } from './domain/passwords.js';
import { publishUserRegistered } from './events.js';
import { insertUser } from './users.js';

/**
 * First start: create the super admin `root`. The password comes from INITIAL_ROOT_PASSWORD;
 * without it the factory default is used, flagged so the console insists on a change.
 */
export async function ensureRootUser(db: DataSource, bus: Bus, logger: Logger, initialPassword?: string): Promise<void> {
  const users = db.getRepository(UserEntity);
  if (await users.existsBy({ role: Role.Root })) return;
  const password = initialPassword || DEFAULT_ROOT_PASSWORD;
  try {
    const root = await insertUser(db.manager, {
      username: 'root',
      displayName: 'Root User',
      passwordHash: await hashPassword(password),
      role: Role.Root,
      passwordIsDefault: !initialPassword,
    });
    await publishUserRegistered(bus, root, 'setup');
  } catch (error) {
    if (error instanceof UserError) return; // another replica created it first
    throw error;
  }
  if (initialPassword) logger.info('created the super admin "root" with the password from INITIAL_ROOT_PASSWORD');
  else {
    logger.warn(
      '!!! created the super admin "root" with the FACTORY DEFAULT password "123456". ' +
        'Log in and change it now, or set INITIAL_ROOT_PASSWORD before the first start. !!!',
    );
  }
}
