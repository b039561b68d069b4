import type { Catalogue } from './catalogue.js';

/** What the gateway, the platform's shared routes and the relay's console routes say. */
export const gatewayMessages = {} as const satisfies Catalogue;
