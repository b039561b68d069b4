import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** Drawing settings: Midjourney and async task switches. */
export function DrawingCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.drawing.title', '绘图设置')}
      saveLabel={t('pages.settings.operation.drawing.save', '保存绘图设置')}
      keys={[
        'DrawingEnabled',
        'TaskEnabled',
        'MjNotifyEnabled',
        'MjAccountFilterEnabled',
        'MjForwardUrlEnabled',
        'MjModeClearEnabled',
        'MjActionCheckSuccessEnabled',
      ]}
    >
      <FieldGrid>
        <OptionField
          name="DrawingEnabled"
          label={t('pages.settings.operation.drawing.drawing', '启用绘图功能')}
          extra={t('pages.settings.operation.drawing.drawing.help', 'Midjourney 绘图相关的接口和页面')}
        />
        <OptionField
          name="TaskEnabled"
          label={t('pages.settings.operation.drawing.task', '启用异步任务功能')}
          extra={t('pages.settings.operation.drawing.task.help', 'Suno 等异步任务的接口和页面')}
        />
        <OptionField
          name="MjNotifyEnabled"
          label={t('pages.settings.operation.drawing.notify', '允许回调（会泄露服务器 IP 地址）')}
          extra={t('pages.settings.operation.drawing.notify.help', '把客户端提供的 notifyHook 传给上游')}
        />
        <OptionField
          name="MjAccountFilterEnabled"
          label={t('pages.settings.operation.drawing.accountFilter', '允许 accountFilter 参数')}
          extra={t('pages.settings.operation.drawing.accountFilter.help', '把客户端提供的 accountFilter 传给上游')}
        />
        <OptionField
          name="MjForwardUrlEnabled"
          label={t('pages.settings.operation.drawing.forwardUrl', '通过本服务器转发图片地址')}
          extra={t('pages.settings.operation.drawing.forwardUrl.help', '开启后，任务图片的上游地址替换为本服务器地址')}
        />
        <OptionField
          name="MjModeClearEnabled"
          label={t('pages.settings.operation.drawing.modeClear', '清除提示词中的模式参数')}
          extra={t('pages.settings.operation.drawing.modeClear.help', '开启后，清除用户提示词中的 --fast、--relax 以及 --turbo 参数')}
        />
        <OptionField
          name="MjActionCheckSuccessEnabled"
          label={t('pages.settings.operation.drawing.actionCheckSuccess', '放大等操作须等待绘图成功')}
          extra={t('pages.settings.operation.drawing.actionCheckSuccess.help', '只有原任务成功后，才能进行放大、变换等后续操作')}
        />
      </FieldGrid>
    </OptionSection>
  );
}
