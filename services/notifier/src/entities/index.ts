import { DeliveryEntity } from './delivery.entity.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';

export { DeliveryEntity, WebhookEndpointEntity };
export type { DeliveryKind, DeliveryStatus } from './delivery.entity.js';

/** The notifier's tables: delivery records (mail and webhook) and root's webhook endpoints. */
export const notifierEntities = [DeliveryEntity, WebhookEndpointEntity];
