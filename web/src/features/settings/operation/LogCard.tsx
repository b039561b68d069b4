import { useState } from 'react';
import { App, Button, DatePicker, Divider, Form, InputNumber, Space } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { OptionField, OptionSection } from '../OptionSection';
import { useClearLogsMutation } from '../options-api';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** Log settings, and clearing the logs written before a chosen time. */
export function LogCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.log.title', '日志设置')}
      saveLabel={t('pages.settings.operation.log.save', '保存日志设置')}
      keys={['LogConsumeEnabled', 'LogRetentionDays']}
    >
      <FieldGrid>
        <OptionField
          name="LogConsumeEnabled"
          label={t('pages.settings.operation.log.consume', '启用额度消费日志记录')}
          extra={t('pages.settings.operation.log.consume.help', '记录每次调用的消费日志')}
        />
        <OptionField
          name="LogRetentionDays"
          label={t('pages.settings.operation.log.retentionDays', '日志保留天数')}
          extra={t('pages.settings.operation.log.retentionDays.help', '每天删除超过该天数的日志，0 表示永久保留')}
          input={<InputNumber min={0} precision={0} suffix={t('pages.settings.operation.unit.days', '天')} style={{ width: '100%' }} />}
        />
      </FieldGrid>
      <ClearLogs />
    </OptionSection>
  );
}

/** docs/product.md section 5: the time defaults to one month ago; without a time nothing is cleared. */
function ClearLogs() {
  const t = useText();
  const { message, modal } = App.useApp();
  const [time, setTime] = useState<Dayjs | null>(() => dayjs().subtract(1, 'month'));
  const [clearLogs, { isLoading }] = useClearLogsMutation();

  const confirmClear = () => {
    if (!time) {
      void message.error(t('pages.settings.operation.log.clear.timeRequired', '请选择日志记录时间'));
      return;
    }
    modal.confirm({
      title: t('pages.settings.operation.log.clear.confirm', '确定要清除历史日志吗？'),
      content: t('pages.settings.operation.log.clear.confirmContent', '将删除 {time} 之前的全部日志，此操作不可撤销。', {
        time: time.format('YYYY-MM-DD HH:mm:ss'),
      }),
      okButtonProps: { danger: true },
      onOk: async () => {
        // Failures are shown by the base query as the server's message.
        const count = await clearLogs({ targetTimestamp: time.unix() })
          .unwrap()
          .catch(() => null);
        if (count !== null) void message.success(t('pages.settings.operation.log.clear.done', '已清理 {count} 条日志！', { count }));
      },
    });
  };

  return (
    <>
      <Divider titlePlacement="start" plain>
        {t('pages.settings.operation.log.clear.title', '清除历史日志')}
      </Divider>
      <Form.Item
        label={t('pages.settings.operation.log.clear.time', '日志记录时间')}
        extra={t('pages.settings.operation.log.clear.time.help', '将删除该时间之前的全部日志')}
        htmlFor="clear-logs-time"
      >
        <Space wrap>
          <DatePicker id="clear-logs-time" showTime value={time} onChange={setTime} />
          <Button danger loading={isLoading} onClick={confirmClear}>
            {t('pages.settings.operation.log.clear.button', '清除历史日志')}
          </Button>
        </Space>
      </Form.Item>
    </>
  );
}
