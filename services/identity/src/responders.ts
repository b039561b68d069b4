import { replyTyped, type Subscription } from '@aigw/platform';
import type { IdentityContext } from './context.js';

/** Identity's request-reply answers: option snapshots for other services, credential lookups for the gateway. */
export async function registerResponders(context: IdentityContext): Promise<Subscription[]> {
  const { bus, options, sessions } = context;
  return Promise.all([
    replyTyped(bus, 'identity.option.snapshot', async () => ({ options: await options.snapshot() })),
    replyTyped(bus, 'identity.auth.resolve', async ({ kind, secret }) => ({ principal: await sessions.resolve(kind, secret) })),
  ]);
}
