import type { ServiceMessaging } from '@aigw/platform';

/**
 * What the gateway says on the bus when it runs in front of separate services (all-in-one it is
 * every service, and their declarations apply). It publishes nothing: it asks identity whose
 * session or access token a console caller holds, and drops its cached answers on identity's
 * session and user events (credentials.ts). Its NATS user gets exactly this
 * (deploy/nats/authorization.conf).
 */
export const gatewayMessaging = {
  publishes: [],
  consumes: ['identity.session.revoked', 'identity.user.updated', 'identity.user.deleted'],
  answers: [],
  asks: ['identity.auth.resolve'],
} as const satisfies ServiceMessaging;
