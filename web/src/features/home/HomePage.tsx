import { PRODUCT_NAME } from '@aigw/contracts';
import { Button, Card, Flex, Skeleton, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { useAccess, useStatus } from '../../app/hooks';
import { RichContent } from '../../components/RichContent';
import { useGetHomePageContentQuery } from './api';
import { NoticeModal } from './NoticeModal';

/** `/`: the admin's home page content, or a short welcome with the API address. */
export function HomePage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const status = useStatus();
  const { signedIn } = useAccess();
  const { data: content, isLoading } = useGetHomePageContentQuery();

  if (isLoading) return <Skeleton active />;
  if (content?.trim()) {
    return (
      <>
        <NoticeModal />
        <RichContent content={content} title={status?.system_name ?? 'home'} />
      </>
    );
  }

  const address = status?.server_address || window.location.origin;
  return (
    <Flex justify="center" style={{ paddingTop: 48 }}>
      <NoticeModal />
      <Card style={{ maxWidth: 720, width: '100%' }}>
        <Typography.Title level={2}>{status?.system_name || PRODUCT_NAME}</Typography.Title>
        <Typography.Paragraph>
          {intl.formatMessage({ id: 'pages.home.intro', defaultMessage: '统一的 AI 模型接口：用 OpenAI 的格式访问众多模型服务，按量计费。' })}
        </Typography.Paragraph>
        <Typography.Paragraph>
          {intl.formatMessage({ id: 'pages.home.baseUrl', defaultMessage: 'API 地址：' })}
          <Typography.Text code copyable>{`${address}/v1`}</Typography.Text>
        </Typography.Paragraph>
        {status?.docs_link && (
          <Typography.Paragraph>
            <Typography.Link href={status.docs_link} target="_blank" rel="noreferrer">
              {intl.formatMessage({ id: 'pages.home.docs', defaultMessage: '使用文档' })}
            </Typography.Link>
          </Typography.Paragraph>
        )}
        <Button type="primary" onClick={() => void navigate(signedIn ? '/token' : '/login')}>
          {intl.formatMessage({ id: 'pages.home.start', defaultMessage: '开始使用' })}
        </Button>
      </Card>
    </Flex>
  );
}

export default HomePage;
