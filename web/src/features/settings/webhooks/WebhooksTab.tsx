import { Space } from 'antd';
import { DeliveriesCard } from './DeliveriesCard';
import { EndpointsCard } from './EndpointsCard';

/** Settings → Webhooks (root): endpoints for integrators, and every mail and webhook delivery with its outcome. */
export function WebhooksTab() {
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <EndpointsCard />
      <DeliveriesCard />
    </Space>
  );
}
