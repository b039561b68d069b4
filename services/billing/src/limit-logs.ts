import { LogType, type EventPayload } from '@aigw/contracts';
import { isUniqueViolation, onEvent, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, LogEntity, TokenEntity } from './entities/index.js';

const scopeWords: Record<EventPayload<'relay.limit.exceeded'>['scope'], string> = {
  key: 'API key',
  user: 'user',
  model: 'model',
  group_model: 'model in group',
  user_requests: 'user (per-user request limit)',
  channels: 'every channel of the model',
};

/**
 * Usage-limit refusals in the logs (docs/architecture.md section 5.9): each `relay.limit.exceeded`
 * becomes an error log row (type 5, as the established product numbers error logs) that admins
 * filter by type and users see among their own; `other` says which limit in the established
 * product's error fields. The relay already holds events back per limit, so rows stay few; the
 * refused request's id keeps a redelivered event from writing twice.
 */
export async function subscribeLimitLogs(context: BillingContext): Promise<Subscription> {
  return onEvent(
    context.bus,
    'relay.limit.exceeded',
    async (event) => {
      const [account, token] = await Promise.all([
        context.db.getRepository(AccountEntity).findOneBy({ user_id: event.user_id }),
        event.token_id > 0 ? context.db.getRepository(TokenEntity).findOneBy({ id: event.token_id }) : null,
      ]);
      const content = `rate limit: ${scopeWords[event.scope]} ${event.field} limit ${event.limit} reached; ${event.refused} request${event.refused === 1 ? '' : 's'} refused`;
      try {
        await context.db.getRepository(LogEntity).insert({
          request_id: event.request_id,
          user_id: event.user_id,
          username: account?.username ?? '',
          created_at: event.time,
          type: LogType.Error,
          content,
          token_id: event.token_id,
          token_name: token?.name ?? '',
          model_name: event.model.slice(0, 128),
          group: event.group.slice(0, 64),
          other: JSON.stringify({
            error_type: 'rate_limit_error',
            error_code: 'rate_limit_exceeded',
            status_code: 429,
            scope: event.scope,
            field: event.field,
            limit: event.limit,
            refused: event.refused,
            retry_after_ms: event.retry_after_ms,
          }),
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error; // redelivered: written already
      }
    },
    { durable: 'billing-limit-logs', logger: context.logger },
  );
}
