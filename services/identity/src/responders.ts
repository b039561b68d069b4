import { In } from 'typeorm';
import { localeSchema, Role, UserStatus, type ResponsePayload } from '@aigw/contracts';
import { replyTyped, type Subscription } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';
import { readNotificationSettings } from './notification-settings.js';

type Contact = ResponsePayload<'identity.user.contacts'>['contacts'][number];

/**
 * Identity's request-reply answers: option snapshots for other services, credential lookups for
 * the gateway, and how to reach users (their addresses and notification settings) for the notifier.
 */
export async function registerResponders(context: IdentityContext): Promise<Subscription[]> {
  const { bus, options, sessions } = context;
  return Promise.all([
    replyTyped(bus, 'identity.option.snapshot', async () => ({ options: await options.snapshot() })),
    replyTyped(bus, 'identity.auth.resolve', async ({ kind, secret }) => ({ principal: await sessions.resolve(kind, secret) })),
    replyTyped(bus, 'identity.session.step-up', async ({ user_id, session }) => ({ verified_at: await context.stepUp.verifiedAt(user_id, session) })),
    replyTyped(bus, 'identity.user.contacts', async ({ user_ids, roots }) => ({ contacts: await findContacts(context, user_ids, roots) })),
  ]);
}

/** The listed users and, with `roots`, every enabled super admin; deregistered users are never contacts. */
async function findContacts(context: IdentityContext, userIds: number[], roots: boolean): Promise<Contact[]> {
  const users = context.db.getRepository(UserEntity);
  const found = new Map<number, UserEntity>();
  if (userIds.length > 0) for (const user of await users.findBy({ id: In(userIds) })) found.set(user.id, user);
  if (roots) for (const user of await users.findBy({ role: Role.Root, status: UserStatus.Enabled })) found.set(user.id, user);
  return [...found.values()]
    .filter((user) => user.deleted_at === null)
    .sort((a, b) => a.id - b.id)
    .map((user) => ({
      user_id: user.id,
      username: user.username,
      display_name: user.display_name,
      email: user.email,
      role: user.role,
      // '' (never seen) or anything unexpected reads as the default language.
      locale: localeSchema.catch('zh-CN').parse(user.language),
      notification: readNotificationSettings(user, context.notificationKey),
    }));
}
