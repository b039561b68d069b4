import type { EventPayload } from '@aigw/contracts';
import { publishEvent, type Bus, type ServiceMessaging } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, type TopUpEntity } from './entities/index.js';

/**
 * What billing says on the bus. It publishes through the functions below, always after the
 * change committed (audit records through platform's recordAudit, dead letters through its
 * keepDeadLetters). It consumes identity's user
 * events (accounts.ts), the relay's requests and usage (usage-consumer.ts) and its refunds of
 * failed tasks (task-refunds.ts), answers in accounts.ts, token-responders.ts and
 * quota-responders.ts, and asks channels for the offered models (pricing.ts); the options come
 * through platform's options mirror.
 */
export const billingMessaging = {
  publishes: [
    'billing.account.updated',
    'billing.token.updated',
    'billing.token.deleted',
    'billing.topup.completed',
    'billing.balance.dropped',
    'billing.audit.recorded',
    'billing.dead_letter.recorded',
  ],
  consumes: [
    'identity.user.registered',
    'identity.user.updated',
    'identity.user.deleted',
    'relay.usage.recorded',
    'relay.request.started',
    'relay.task.refunded',
    'relay.limit.exceeded',
    'identity.option.updated',
  ],
  answers: ['billing.account.balances', 'billing.account.set_quota', 'billing.token.resolve', 'billing.token.figures', 'billing.quota.seed'],
  asks: ['channels.model.enabled', 'identity.option.snapshot'],
} as const satisfies ServiceMessaging;

/** The account's balance, status, group and role as they are now (the relay's token cache keeps them). */
export async function publishAccountUpdated(context: Pick<BillingContext, 'db' | 'bus'>, userId: number): Promise<void> {
  const account = await context.db.getRepository(AccountEntity).findOneBy({ user_id: userId });
  if (!account) return;
  await publishEvent(context.bus, 'billing.account.updated', {
    user_id: userId,
    quota: account.quota,
    status: account.status,
    group: account.group,
    role: account.role,
  });
}

export async function publishTokenUpdated(bus: Bus, token: EventPayload<'billing.token.updated'>): Promise<void> {
  await publishEvent(bus, 'billing.token.updated', token);
}

export async function publishTokenDeleted(bus: Bus, token: EventPayload<'billing.token.deleted'>): Promise<void> {
  await publishEvent(bus, 'billing.token.deleted', token);
}

/** Once per order (event id `topup-completed-<trade_no>`). */
export async function publishTopupCompleted(bus: Bus, order: TopUpEntity): Promise<void> {
  await publishEvent(
    bus,
    'billing.topup.completed',
    {
      trade_no: order.trade_no,
      user_id: order.user_id,
      quota: order.amount,
      money: order.money,
      gateway: order.gateway,
      payment_method: order.payment_method,
      completed_by: order.completed_by,
      completed_at: order.completed_at,
    },
    `topup-completed-${order.trade_no}`,
  );
}

/** Once per request that crossed the threshold (event id `balance-dropped-<request id>`). */
export async function publishBalanceDropped(bus: Bus, drop: EventPayload<'billing.balance.dropped'>): Promise<void> {
  await publishEvent(bus, 'billing.balance.dropped', drop, `balance-dropped-${drop.request_id}`);
}
