import { deadLetterEntities } from '@aigw/platform';
import { DeliveryEntity } from './delivery.entity.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';

export { DeliveryEntity, WebhookEndpointEntity };
export type { DeliveryKind, DeliveryStatus } from './delivery.entity.js';

/** The notifier's tables: delivery records (mail and webhook), root's webhook endpoints and its dead letters. */
export const notifierEntities = [DeliveryEntity, WebhookEndpointEntity, deadLetterEntities.notifier];
