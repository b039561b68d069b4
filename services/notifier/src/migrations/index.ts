import { NotifierDeliveries1732600000000 } from './1732600000000-deliveries.js';
import { NotifierWebhookEndpoints1732610000000 } from './1732610000000-webhook-endpoints.js';
import { NotifierDeadLetters1733900000000 } from './1733900000000-dead-letters.js';

export const notifierMigrations = [NotifierDeliveries1732600000000, NotifierWebhookEndpoints1732610000000, NotifierDeadLetters1733900000000];
