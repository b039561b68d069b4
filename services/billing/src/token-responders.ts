import { replyTyped, type Subscription } from '@aigw/platform';
import type { BillingContext } from './context.js';
import { resolveToken } from './tokens.js';

/**
 * `billing.token.resolve`: the relay hashes the sk- key it received and asks for the token
 * behind it (never the key itself, which billing does not keep in plaintext). It caches the
 * answer and refreshes it from `billing.token.updated/deleted`.
 */
export async function registerTokenResponders(context: BillingContext): Promise<Subscription[]> {
  return [await replyTyped(context.bus, 'billing.token.resolve', async ({ key_hash }) => ({ token: await resolveToken(context, key_hash) }))];
}
