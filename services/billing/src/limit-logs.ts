import { LogType, renderLogMessage, type EventPayload, type LogMessage, type LogMessageId } from '@aigw/contracts';
import { isUniqueViolation, onEvent, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { AccountEntity, LogEntity, TokenEntity } from './entities/index.js';

type Refusal = EventPayload<'relay.limit.exceeded'>;

/** The log message of each scope's refusal: [one request refused, several]. */
const refusalMessages: Record<Refusal['scope'], [LogMessageId, LogMessageId]> = {
  key: ['limits.refused_key_one', 'limits.refused_key'],
  user: ['limits.refused_user_one', 'limits.refused_user'],
  model: ['limits.refused_model_one', 'limits.refused_model'],
  group_model: ['limits.refused_group_model_one', 'limits.refused_group_model'],
  user_requests: ['limits.refused_user_requests_one', 'limits.refused_user_requests'],
  channels: ['limits.refused_channels_one', 'limits.refused_channels'],
};

/** What the row says, as data (log-messages.ts in contracts): read in the reader's language. */
export function refusalMessage(event: Refusal): LogMessage {
  const [one, several] = refusalMessages[event.scope];
  return {
    id: event.refused === 1 ? one : several,
    params: { field: event.field, limit: String(event.limit), refused: String(event.refused) },
  };
}

/**
 * Usage-limit refusals in the logs (docs/architecture.md section 5.9): each `relay.limit.exceeded`
 * becomes an error log row (type 5, as the established product numbers error logs) that admins
 * filter by type and users see among their own; `other` says which limit in the established
 * product's error fields and keeps the row's message, which the log routes word in the reader's
 * language. The relay already holds events back per limit, so rows stay few; the refused
 * request's id keeps a redelivered event from writing twice.
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
      const message = refusalMessage(event);
      try {
        await context.db.getRepository(LogEntity).insert({
          request_id: event.request_id,
          user_id: event.user_id,
          username: account?.username ?? '',
          created_at: event.time,
          type: LogType.Error,
          content: renderLogMessage(message, 'en-US'),
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
            message,
          }),
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error; // redelivered: written already
      }
    },
    { durable: 'billing-limit-logs', logger: context.logger },
  );
}
