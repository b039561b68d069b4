import { Input, InputNumber } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** General settings: links, quota unit, retries and site-wide switches. */
export function GeneralCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.general.title', '通用设置')}
      saveLabel={t('pages.settings.operation.general.save', '保存通用设置')}
      keys={[
        'TopUpLink',
        'ChatLink',
        'ChatLink2',
        'general_setting.docs_link',
        'QuotaPerUnit',
        'RetryTimes',
        'DisplayInCurrencyEnabled',
        'DisplayTokenStatEnabled',
        'DefaultCollapseSidebar',
        'DemoSiteEnabled',
        'SelfUseModeEnabled',
        'StreamCacheQueueLength',
        'global.pass_through_request_enabled',
      ]}
    >
      <FieldGrid>
        <OptionField
          name="TopUpLink"
          label={t('pages.settings.operation.general.topUpLink', '充值链接')}
          extra={t('pages.settings.operation.general.topUpLink.help', '钱包页面打开的外部充值地址，例如发卡网站的购买链接')}
          input={<Input placeholder="https://" />}
        />
        <OptionField
          name="ChatLink"
          label={t('pages.settings.operation.general.chatLink', '聊天页面链接')}
          extra={t('pages.settings.operation.general.chatLink.help', '聊天页面嵌入的地址（旧版兼容）')}
        />
        <OptionField
          name="ChatLink2"
          label={t('pages.settings.operation.general.chatLink2', '聊天页面 2 链接')}
          extra={t('pages.settings.operation.general.chatLink2.help', '第二个聊天页面嵌入的地址（旧版兼容）')}
        />
        <OptionField
          name="general_setting.docs_link"
          label={t('pages.settings.operation.general.docsLink', '文档地址')}
          extra={t('pages.settings.operation.general.docsLink.help', '控制台中“文档”链接指向的地址')}
          input={<Input placeholder="https://" />}
        />
        <OptionField
          name="QuotaPerUnit"
          label={t('pages.settings.operation.general.quotaPerUnit', '单位美元额度')}
          extra={t('pages.settings.operation.general.quotaPerUnit.help', '一美元对应的额度数量，用于把额度换算成货币')}
        />
        <OptionField
          name="RetryTimes"
          label={t('pages.settings.operation.general.retryTimes', '失败重试次数')}
          extra={t('pages.settings.operation.general.retryTimes.help', '可重试的失败后换用其他渠道再试的次数（0 到 10）')}
          input={<InputNumber min={0} max={10} precision={0} style={{ width: '100%' }} />}
        />
        <OptionField
          name="StreamCacheQueueLength"
          label={t('pages.settings.operation.general.streamCacheQueueLength', '流模式缓存队列长度')}
          extra={t('pages.settings.operation.general.streamCacheQueueLength.help', '流式响应的缓冲长度，0 表示不缓冲')}
          input={<InputNumber min={0} precision={0} style={{ width: '100%' }} />}
        />
      </FieldGrid>
      <FieldGrid>
        <OptionField
          name="DisplayInCurrencyEnabled"
          label={t('pages.settings.operation.general.displayInCurrency', '以货币形式显示额度')}
          extra={t('pages.settings.operation.general.displayInCurrency.help', '按单位美元额度把额度显示为金额，关闭则显示原始额度')}
        />
        <OptionField
          name="DisplayTokenStatEnabled"
          label={t('pages.settings.operation.general.displayTokenStat', '额度查询接口返回令牌额度而非用户额度')}
          extra={t('pages.settings.operation.general.displayTokenStat.help', '/dashboard/billing 接口回答令牌的额度数据')}
        />
        <OptionField
          name="DefaultCollapseSidebar"
          label={t('pages.settings.operation.general.defaultCollapseSidebar', '默认折叠侧边栏')}
          extra={t('pages.settings.operation.general.defaultCollapseSidebar.help', '用户未自行切换时，控制台侧边栏默认收起')}
        />
        <OptionField
          name="DemoSiteEnabled"
          label={t('pages.settings.operation.general.demoSite', '演示站点模式')}
          extra={t('pages.settings.operation.general.demoSite.help', '把本站标记为演示站点')}
        />
        <OptionField
          name="SelfUseModeEnabled"
          label={t('pages.settings.operation.general.selfUseMode', '自用模式')}
          extra={t('pages.settings.operation.general.selfUseMode.help', '开启后，未设置价格的模型也可以使用')}
        />
        <OptionField
          name="global.pass_through_request_enabled"
          label={t('pages.settings.operation.general.passThrough', '请求透传')}
          extra={t('pages.settings.operation.general.passThrough.help', '把客户端的请求体原样发送给上游')}
        />
      </FieldGrid>
    </OptionSection>
  );
}
