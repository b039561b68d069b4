import { Card, Col, Row, Statistic } from 'antd';
import { useIntl } from 'react-intl';
import type { User } from '@aigw/contracts';
import { useFormatQuota } from '../../../app/hooks';

/** Current balance, historical consumption and request count of the signed-in user. */
export function BalanceCard({ user }: { user: User }) {
  const intl = useIntl();
  const formatQuota = useFormatQuota();

  return (
    <Card title={intl.formatMessage({ id: 'pages.settings.personal.balance.title', defaultMessage: '账户统计' })}>
      <Row gutter={[16, 16]}>
        <Col xs={24} sm={8}>
          <Statistic title={intl.formatMessage({ id: 'pages.settings.personal.balance.quota', defaultMessage: '当前余额' })} value={formatQuota(user.quota)} />
        </Col>
        <Col xs={24} sm={8}>
          <Statistic
            title={intl.formatMessage({ id: 'pages.settings.personal.balance.usedQuota', defaultMessage: '历史消耗' })}
            value={formatQuota(user.used_quota)}
          />
        </Col>
        <Col xs={24} sm={8}>
          <Statistic
            title={intl.formatMessage({ id: 'pages.settings.personal.balance.requestCount', defaultMessage: '请求次数' })}
            value={user.request_count}
          />
        </Col>
      </Row>
    </Card>
  );
}
