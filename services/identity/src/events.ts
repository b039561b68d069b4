import type { EventPayload } from '@aigw/contracts';
import { publishEvent, type Bus } from '@aigw/platform';
import type { UserEntity } from './entities/user.entity.js';

/**
 * What identity publishes (always after the change is committed):
 * identity.user.registered/updated/deleted, identity.session.revoked, identity.option.updated,
 * and notifier.mail.requested for verification and reset mails.
 * It consumes its own identity.option.updated (to keep replicas in step).
 */

export function userSnapshot(user: UserEntity): EventPayload<'identity.user.updated'> {
  return {
    user_id: user.id, username: user.username, display_name: user.display_name, email: user.email,
    role: user.role, status: user.status, group: user.group,
  };
}

export function publishUserRegistered(bus: Bus, user: UserEntity, source: EventPayload<'identity.user.registered'>['source']) {
  return publishEvent(bus, 'identity.user.registered', { ...userSnapshot(user), inviter_id: user.inviter_id, source }, `user-registered-${user.id}`);
}

export function publishUserUpdated(bus: Bus, user: UserEntity) {
  return publishEvent(bus, 'identity.user.updated', userSnapshot(user));
}

export function publishUserDeleted(bus: Bus, userId: number) {
  return publishEvent(bus, 'identity.user.deleted', { user_id: userId }, `user-deleted-${userId}`);
}

/** `sessionHash` null revokes every session of the user. */
export function publishSessionRevoked(bus: Bus, userId: number, sessionHash: string | null) {
  return publishEvent(bus, 'identity.session.revoked', { user_id: userId, session_hash: sessionHash });
}

export function publishOptionUpdated(bus: Bus, payload: EventPayload<'identity.option.updated'>) {
  return publishEvent(bus, 'identity.option.updated', payload, `option-${payload.key}-${payload.version}`);
}

export function requestMail(bus: Bus, payload: EventPayload<'notifier.mail.requested'>) {
  return publishEvent(bus, 'notifier.mail.requested', payload);
}
