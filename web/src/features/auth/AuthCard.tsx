import type { ReactNode } from 'react';
import { Card, Flex, Typography } from 'antd';
import { useStatus } from '../../app/hooks';

/** The centred card of the account screens (login, register, reset). */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  const status = useStatus();
  return (
    <Flex justify="center" style={{ paddingTop: 32 }}>
      <Card style={{ width: '100%', maxWidth: 420 }}>
        <Flex vertical align="center" gap={8} style={{ marginBottom: 24 }}>
          <img src={status?.logo || '/logo.svg'} alt="" width={48} height={48} style={{ borderRadius: 10 }} />
          <Typography.Title level={3} style={{ margin: 0 }}>
            {title}
          </Typography.Title>
        </Flex>
        {children}
      </Card>
    </Flex>
  );
}
