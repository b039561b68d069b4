import { useState } from 'react';
import { App, Button, Card, Col, Input, Row, Space, Statistic, Typography } from 'antd';
import { CopyOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import type { User } from '@aigw/contracts';
import { useFormatQuota } from '../../../app/hooks';
import { copyText } from '../../../lib/clipboard';
import { useAffCodeQuery } from './api';
import { TransferDialog } from './TransferDialog';

/** The invite link (copied on click) and the invite earnings, with their transfer dialog. */
export function InviteCard({ user }: { user: User }) {
  const intl = useIntl();
  const { message } = App.useApp();
  const formatQuota = useFormatQuota();
  const { data: affCode } = useAffCodeQuery();
  const [transferOpen, setTransferOpen] = useState(false);
  const link = affCode ? `${window.location.origin}/register?aff=${affCode}` : '';

  const copyLink = async () => {
    if (!link) return;
    if (await copyText(link)) {
      void message.success(intl.formatMessage({ id: 'pages.settings.personal.invite.linkCopied', defaultMessage: '邀请链接已复制到剪切板' }));
    }
  };

  const linkLabel = intl.formatMessage({ id: 'pages.settings.personal.invite.link', defaultMessage: '邀请链接' });

  return (
    <Card title={intl.formatMessage({ id: 'pages.settings.personal.invite.title', defaultMessage: '邀请奖励' })}>
      <Typography.Text type="secondary">{linkLabel}</Typography.Text>
      <Space.Compact block style={{ marginTop: 8, marginBottom: 16 }}>
        <Input readOnly value={link} aria-label={linkLabel} onClick={() => void copyLink()} style={{ cursor: 'pointer' }} />
        <Button icon={<CopyOutlined />} disabled={!link} onClick={() => void copyLink()}>
          {intl.formatMessage({ id: 'pages.settings.personal.invite.copy', defaultMessage: '复制' })}
        </Button>
      </Space.Compact>
      <Row gutter={[16, 16]}>
        <Col xs={24} sm={8}>
          <Statistic
            title={intl.formatMessage({ id: 'pages.settings.personal.invite.pending', defaultMessage: '待使用收益' })}
            value={formatQuota(user.aff_quota)}
          />
          <Button size="small" type="primary" style={{ marginTop: 8 }} onClick={() => setTransferOpen(true)}>
            {intl.formatMessage({ id: 'pages.settings.personal.invite.transfer', defaultMessage: '划转' })}
          </Button>
        </Col>
        <Col xs={24} sm={8}>
          <Statistic
            title={intl.formatMessage({ id: 'pages.settings.personal.invite.total', defaultMessage: '总收益' })}
            value={formatQuota(user.aff_history_quota)}
          />
        </Col>
        <Col xs={24} sm={8}>
          <Statistic title={intl.formatMessage({ id: 'pages.settings.personal.invite.count', defaultMessage: '邀请人数' })} value={user.aff_count} />
        </Col>
      </Row>
      <TransferDialog open={transferOpen} available={user.aff_quota} onClose={() => setTransferOpen(false)} />
    </Card>
  );
}
