import { parseRateLimits, type EventPayload } from '@aigw/contracts';
import { publishEvent, type Bus, type ServiceMessaging } from '@aigw/platform';
import type { UserEntity } from './entities/user.entity.js';

/**
 * What identity says on the bus. It publishes through the functions below, always after the
 * change committed (audit records through platform's recordAudit, dead letters through its
 * keepDeadLetters), mail requests for
 * verification and reset mails included. It consumes its own option updates, to keep replicas in
 * step (options-store.ts), and every service's audit records (audit-trail.ts); it answers in
 * responders.ts and asks billing for balances (balances.ts) and admins' quota changes (user-admin.ts).
 */
export const identityMessaging = {
  publishes: [
    'identity.user.registered',
    'identity.user.updated',
    'identity.user.deleted',
    'identity.session.revoked',
    'identity.option.updated',
    'notifier.mail.requested',
    'identity.audit.recorded',
    'identity.dead_letter.recorded',
  ],
  consumes: ['identity.option.updated', 'identity.audit.recorded', 'billing.audit.recorded', 'channels.audit.recorded', 'notifier.audit.recorded'],
  answers: ['identity.option.snapshot', 'identity.auth.resolve', 'identity.session.step-up', 'identity.user.contacts'],
  asks: ['billing.account.balances', 'billing.account.set_quota', 'notifier.mail.outcome'],
} as const satisfies ServiceMessaging;

export function userSnapshot(user: UserEntity): EventPayload<'identity.user.updated'> {
  return {
    user_id: user.id,
    username: user.username,
    display_name: user.display_name,
    email: user.email,
    role: user.role,
    status: user.status,
    group: user.group,
    rate_limits: parseRateLimits(user.rate_limits),
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
