import { InputNumber, Select } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** docs/product.md section 5: the data dashboard interval defaults to 5 minutes, at least 1. */
export const MIN_EXPORT_INTERVAL = 1;

/** Data dashboard: collection switch, flush interval and the default granularity. */
export function DashboardCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.dashboard.title', '数据看板设置')}
      saveLabel={t('pages.settings.operation.dashboard.save', '保存数据看板设置')}
      keys={['DataExportEnabled', 'DataExportInterval', 'DataExportDefaultTime']}
    >
      <FieldGrid>
        <OptionField
          name="DataExportEnabled"
          label={t('pages.settings.operation.dashboard.enabled', '启用数据看板（实验性）')}
          extra={t('pages.settings.operation.dashboard.enabled.help', '按小时汇总额度数据，供数据看板展示')}
        />
        <OptionField
          name="DataExportInterval"
          label={t('pages.settings.operation.dashboard.interval', '数据看板更新间隔')}
          extra={t('pages.settings.operation.dashboard.interval.help', '单位分钟，最小 1，默认 5')}
          // The message says why, instead of the contracts' generic "too small".
          validateFirst
          rules={[{ type: 'number', min: MIN_EXPORT_INTERVAL, message: t('pages.settings.operation.dashboard.interval.min', '数据看板更新间隔最小为 1 分钟') }]}
          input={<InputNumber precision={0} suffix={t('pages.settings.operation.unit.minutes', '分钟')} style={{ width: '100%' }} />}
        />
        <OptionField
          name="DataExportDefaultTime"
          label={t('pages.settings.operation.dashboard.defaultTime', '数据看板默认时间粒度')}
          extra={t('pages.settings.operation.dashboard.defaultTime.help', '数据看板打开时使用的时间粒度')}
          input={
            <Select
              options={[
                { value: 'hour', label: t('pages.settings.operation.dashboard.granularity.hour', '小时') },
                { value: 'day', label: t('pages.settings.operation.dashboard.granularity.day', '天') },
                { value: 'week', label: t('pages.settings.operation.dashboard.granularity.week', '周') },
              ]}
            />
          }
        />
      </FieldGrid>
    </OptionSection>
  );
}
