import { Input, InputNumber } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** Monitoring: when channels are disabled or enabled automatically, and upstream reach. */
export function MonitoringCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.monitoring.title', '监控设置')}
      saveLabel={t('pages.settings.operation.monitoring.save', '保存监控设置')}
      keys={[
        'ChannelDisableThreshold',
        'QuotaRemindThreshold',
        'ChannelTestFrequency',
        'ChannelUpdateFrequency',
        'AutomaticDisableChannelEnabled',
        'AutomaticEnableChannelEnabled',
        'AutomaticDisableKeywords',
        'AllowPrivateNetworkUpstreams',
      ]}
    >
      <FieldGrid>
        <OptionField
          name="ChannelDisableThreshold"
          label={t('pages.settings.operation.monitoring.disableThreshold', '最长响应时间')}
          extra={t('pages.settings.operation.monitoring.disableThreshold.help', '渠道测试超过该时间将自动禁用渠道，0 表示不禁用')}
          input={<InputNumber min={0} suffix={t('pages.settings.operation.unit.seconds', '秒')} style={{ width: '100%' }} />}
        />
        <OptionField
          name="QuotaRemindThreshold"
          label={t('pages.settings.operation.monitoring.quotaRemind', '额度提醒阈值')}
          extra={t('pages.settings.operation.monitoring.quotaRemind.help', '用户剩余额度低于该值时发出提醒')}
          input={<InputNumber min={0} precision={0} style={{ width: '100%' }} />}
        />
        <OptionField
          name="ChannelTestFrequency"
          label={t('pages.settings.operation.monitoring.testFrequency', '自动测试所有渠道间隔')}
          extra={t('pages.settings.operation.monitoring.testFrequency.help', '定时测试所有已启用和被自动禁用的渠道，0 表示不自动测试')}
          input={<InputNumber min={0} precision={0} suffix={t('pages.settings.operation.unit.minutes', '分钟')} style={{ width: '100%' }} />}
        />
        <OptionField
          name="ChannelUpdateFrequency"
          label={t('pages.settings.operation.monitoring.updateFrequency', '自动更新渠道余额间隔')}
          extra={t('pages.settings.operation.monitoring.updateFrequency.help', '定时更新所有已启用渠道的余额，0 表示不自动更新')}
          input={<InputNumber min={0} precision={0} suffix={t('pages.settings.operation.unit.minutes', '分钟')} style={{ width: '100%' }} />}
        />
      </FieldGrid>
      <FieldGrid>
        <OptionField
          name="AutomaticDisableChannelEnabled"
          label={t('pages.settings.operation.monitoring.autoDisable', '失败时自动禁用渠道')}
          extra={t('pages.settings.operation.monitoring.autoDisable.help', '上游返回认证或额度错误时禁用该渠道')}
        />
        <OptionField
          name="AutomaticEnableChannelEnabled"
          label={t('pages.settings.operation.monitoring.autoEnable', '成功时自动启用渠道')}
          extra={t('pages.settings.operation.monitoring.autoEnable.help', '被自动禁用的渠道测试成功后重新启用')}
        />
        <OptionField
          name="AllowPrivateNetworkUpstreams"
          label={t('pages.settings.operation.monitoring.privateNetwork', '允许访问内网上游')}
          extra={t(
            'pages.settings.operation.monitoring.privateNetwork.help',
            '新建渠道的默认值：开启时新渠道可访问回环、内网和链路本地地址（每个渠道另有自己的开关，已有渠道不受影响）；第三方登录和 Webhook 也按此设置',
          )}
        />
      </FieldGrid>
      <OptionField
        name="AutomaticDisableKeywords"
        label={t('pages.settings.operation.monitoring.keywords', '自动禁用关键词')}
        extra={t('pages.settings.operation.monitoring.keywords.help', '上游错误信息包含其中任一关键词时自动禁用渠道，一行一个')}
        input={<Input.TextArea autoSize={{ minRows: 4, maxRows: 12 }} />}
      />
    </OptionSection>
  );
}
