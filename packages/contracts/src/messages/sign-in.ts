import type { Catalogue } from './catalogue.js';

/** What signing in and its ceremonies say: passwords, second factors, passkeys, OAuth, Telegram, registration. */
export const signInMessages = {} as const satisfies Catalogue;
