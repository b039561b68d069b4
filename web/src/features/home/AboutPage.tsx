import { PRODUCT_NAME } from '@aigw/contracts';
import { Card, Skeleton, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useStatus } from '../../app/hooks';
import { RichContent } from '../../components/RichContent';
import { useGetAboutQuery } from './api';

/** `/about`: the admin's about text (markdown, HTML or a URL), or a note that none is set. */
export function AboutPage() {
  const intl = useIntl();
  const status = useStatus();
  const { data: about, isLoading } = useGetAboutQuery();
  const title = intl.formatMessage({ id: 'pages.about.title', defaultMessage: '关于' });

  if (isLoading) return <Skeleton active />;
  if (about?.trim()) return <RichContent content={about} title={title} />;
  return (
    <Card title={title}>
      <Typography.Paragraph>
        {intl.formatMessage({
          id: 'pages.about.empty',
          defaultMessage: '管理员未设置关于内容，可在 设置 → 其他设置 中填写（支持 Markdown、HTML 或一个网址）。',
        })}
      </Typography.Paragraph>
      {status?.version && <Typography.Text type="secondary">{`${status.system_name || PRODUCT_NAME} v${status.version}`}</Typography.Text>}
    </Card>
  );
}

export default AboutPage;
