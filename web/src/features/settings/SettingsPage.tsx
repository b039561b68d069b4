import { Tabs } from 'antd';
import { useIntl } from 'react-intl';
import { useSearchParams } from 'react-router';
import { useAccess } from '../../app/hooks';
import { OperationTab } from './operation/OperationTab';
import { OtherTab } from './other/OtherTab';
import { PersonalTab } from './personal/PersonalTab';
import { SystemTab } from './system/SystemTab';
import { WebhooksTab } from './webhooks/WebhooksTab';
import { AuditTab } from './audit/AuditTab';

const tabKeys = ['personal', 'operation', 'system', 'other', 'webhooks', 'audit'] as const;
type TabKey = (typeof tabKeys)[number];

/** /setting?tab=: personal for everyone; operation, system, other, webhooks and the audit log for the super admin. */
export function SettingsPage() {
  const intl = useIntl();
  const { isRoot } = useAccess();
  const [searchParams, setSearchParams] = useSearchParams();
  const requested = searchParams.get('tab') as TabKey | null;
  const available: TabKey[] = isRoot ? [...tabKeys] : ['personal'];
  const active = requested && available.includes(requested) ? requested : 'personal';

  const items = [
    { key: 'personal', label: intl.formatMessage({ id: 'pages.settings.tab.personal', defaultMessage: '个人设置' }), children: <PersonalTab /> },
    ...(isRoot
      ? [
          { key: 'operation', label: intl.formatMessage({ id: 'pages.settings.tab.operation', defaultMessage: '运营设置' }), children: <OperationTab /> },
          { key: 'system', label: intl.formatMessage({ id: 'pages.settings.tab.system', defaultMessage: '系统设置' }), children: <SystemTab /> },
          { key: 'other', label: intl.formatMessage({ id: 'pages.settings.tab.other', defaultMessage: '其他设置' }), children: <OtherTab /> },
          { key: 'webhooks', label: intl.formatMessage({ id: 'pages.settings.tab.webhooks', defaultMessage: 'Webhooks' }), children: <WebhooksTab /> },
          { key: 'audit', label: intl.formatMessage({ id: 'pages.settings.tab.audit', defaultMessage: '审计日志' }), children: <AuditTab /> },
        ]
      : []),
  ];

  return <Tabs activeKey={active} destroyOnHidden onChange={(key) => setSearchParams({ tab: key }, { replace: true })} items={items} />;
}

export default SettingsPage;
