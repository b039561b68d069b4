import { App, Button, Card, Tabs } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { useResetModelRatioMutation } from '../options-api';
import { PricingEditor } from './PricingEditor';
import { useText } from '../../../app/use-text';

/** Model ratio settings: the price and ratio maps as JSON, or prices and ratios as an editable table. */
export function RatioCard() {
  const t = useText();
  return (
    <Card title={t('pages.settings.operation.ratio.title', '倍率设置')} style={{ marginBottom: 16 }}>
      <Tabs
        items={[
          { key: 'json', label: t('pages.settings.operation.ratio.tab.json', '模型倍率设置'), children: <RatioJson /> },
          { key: 'visual', label: t('pages.settings.operation.ratio.tab.visual', '可视化倍率设置'), children: <PricingEditor /> },
        ]}
      />
    </Card>
  );
}

function RatioJson() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.ratio.json.title', '模型倍率（JSON）')}
      saveLabel={t('pages.settings.operation.ratio.save', '保存模型倍率设置')}
      keys={['ModelPrice', 'ModelRatio', 'CompletionRatio', 'CacheRatio', 'CreateCacheRatio', 'AudioRatio', 'AudioCompletionRatio']}
      extra={<ResetModelRatio />}
    >
      <OptionField
        name="ModelPrice"
        label={t('pages.settings.operation.ratio.modelPrice', '模型固定价格')}
        extra={t('pages.settings.operation.ratio.modelPrice.help', 'JSON 对象：模型名称到每次调用的美元价格；设置了固定价格的模型按次计费，不使用模型倍率')}
      />
      <OptionField
        name="ModelRatio"
        label={t('pages.settings.operation.ratio.modelRatio', '模型倍率')}
        extra={t('pages.settings.operation.ratio.modelRatio.help', 'JSON 对象：模型名称到倍率；倍率 1 相当于每百万输入 token 2 美元')}
      />
      <OptionField
        name="CompletionRatio"
        label={t('pages.settings.operation.ratio.completionRatio', '补全倍率')}
        extra={t('pages.settings.operation.ratio.completionRatio.help', 'JSON 对象：模型名称到补全倍率；补全价格 = 输入价格 × 补全倍率')}
      />
      <OptionField
        name="CacheRatio"
        label={t('pages.settings.operation.ratio.cacheRatio', '缓存倍率')}
        extra={t('pages.settings.operation.ratio.cacheRatio.help', 'JSON 对象：模型名称到缓存倍率；命中缓存的输入 token 按输入价格 × 缓存倍率计费')}
      />
      <OptionField
        name="CreateCacheRatio"
        label={t('pages.settings.operation.ratio.createCacheRatio', '缓存创建倍率')}
        extra={t(
          'pages.settings.operation.ratio.createCacheRatio.help',
          'JSON 对象：模型名称到缓存创建倍率；写入缓存的输入 token（Anthropic 的提示缓存）按输入价格 × 缓存创建倍率计费，未设置的模型为 1.25',
        )}
      />
      <OptionField
        name="AudioRatio"
        label={t('pages.settings.operation.ratio.audioRatio', '音频倍率')}
        extra={t('pages.settings.operation.ratio.audioRatio.help', 'JSON 对象：模型名称到音频倍率；音频输入 token 的价格 = 文字输入价格 × 音频倍率')}
      />
      <OptionField
        name="AudioCompletionRatio"
        label={t('pages.settings.operation.ratio.audioCompletionRatio', '音频补全倍率')}
        extra={t(
          'pages.settings.operation.ratio.audioCompletionRatio.help',
          'JSON 对象：模型名称到音频补全倍率；音频输出 token 的价格 = 音频输入价格 × 音频补全倍率，未设置的模型为 2',
        )}
      />
    </OptionSection>
  );
}

/** POST /api/option/rest_model_ratio after a confirmation; the cards then show the defaults. */
function ResetModelRatio() {
  const t = useText();
  const { message, modal } = App.useApp();
  const [reset, { isLoading }] = useResetModelRatioMutation();
  const confirmReset = () => {
    modal.confirm({
      title: t('pages.settings.operation.ratio.reset.confirm', '确定重置模型倍率吗？'),
      content: t('pages.settings.operation.ratio.reset.confirmContent', '模型固定价格、模型倍率、补全倍率、缓存倍率、缓存创建倍率和音频倍率将恢复为默认值。'),
      okButtonProps: { danger: true },
      onOk: async () => {
        // Failures are shown by the base query as the server's message.
        const done = await reset()
          .unwrap()
          .then(
            () => true,
            () => false,
          );
        if (done) void message.success(t('pages.settings.operation.ratio.reset.done', '重置模型倍率成功'));
      },
    });
  };
  return (
    <Button danger style={{ marginLeft: 8 }} loading={isLoading} onClick={confirmReset}>
      {t('pages.settings.operation.ratio.reset', '重置模型倍率')}
    </Button>
  );
}
