import type { Catalogue } from './catalogue.js';

/** What the notifier's routes say: webhooks, notices, mail. */
export const notifierMessages = {} as const satisfies Catalogue;
