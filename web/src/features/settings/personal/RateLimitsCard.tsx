import { Card, Descriptions, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { rateLimitFields, type RateLimitField, type User } from '@aigw/contracts';
import { useText } from '../../../app/use-text';
import { rateLimitLabels } from '../../../components/RateLimitFields';
import { useLimitUse } from '../../limits/api';

const limitTexts: Record<RateLimitField, { id: string; defaultMessage: string }> = {
  rpm: { id: 'pages.settings.personal.limits.rpm', defaultMessage: '{count} 次 / 每分钟' },
  rpd: { id: 'pages.settings.personal.limits.rpd', defaultMessage: '{count} 次 / 每天' },
  tpm: { id: 'pages.settings.personal.limits.tpm', defaultMessage: '{count} Token / 每分钟' },
  tpd: { id: 'pages.settings.personal.limits.tpd', defaultMessage: '{count} Token / 每天' },
  concurrency: { id: 'pages.settings.personal.limits.concurrency', defaultMessage: '{count} 个' },
};

/**
 * The user's own usage limits, read-only (an admin sets them in the user editor), each with what
 * it has counted now (docs/architecture.md section 5.9). Only the own set is shown: the group's
 * and the default are options, which only root may read, so the hint says they may apply too.
 */
export function RateLimitsCard({ user }: { user: User }) {
  const intl = useIntl();
  const t = useText();
  const use = useLimitUse({ scope: 'user', id: user.id });

  const describe = (field: RateLimitField) => {
    const limit = user.rate_limits[field] ?? 0;
    if (limit === 0) return t('pages.settings.personal.limits.unlimited', '不限制');
    const text = intl.formatMessage(limitTexts[field], { count: intl.formatNumber(limit) });
    // Concurrency has no window to count (the server answers no use for it). A field the user's
    // own set leaves open shows no use either: its count would belong to a limit not shown here.
    const used = use?.find((entry) => entry.field === field)?.used;
    if (used === undefined) return text;
    const usedText =
      field === 'tpm' || field === 'tpd'
        ? t('pages.settings.personal.limits.usedTokens', '已用 {used} Token', { used: intl.formatNumber(used) })
        : t('pages.settings.personal.limits.usedRequests', '已用 {used} 次', { used: intl.formatNumber(used) });
    return (
      <>
        {text}
        <Typography.Text type="secondary" style={{ marginInlineStart: 12 }}>
          {usedText}
        </Typography.Text>
      </>
    );
  };

  return (
    <Card title={t('pages.settings.personal.limits.title', '我的速率限制')}>
      <Typography.Paragraph type="secondary">
        {t('pages.settings.personal.limits.hint', '管理员为你的账户设置的限制，超出时请求会被拒绝（HTTP 429）；你所在分组或全站的默认限制可能另有规定。')}
      </Typography.Paragraph>
      <Descriptions
        column={1}
        size="small"
        bordered
        items={rateLimitFields.map((field) => ({ key: field, label: intl.formatMessage(rateLimitLabels[field]), children: describe(field) }))}
      />
    </Card>
  );
}
