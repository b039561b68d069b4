import { Input } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** Sensitive-word filter: switches and the word list (one per line). */
export function SensitiveCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.sensitive.title', '屏蔽词过滤设置')}
      saveLabel={t('pages.settings.operation.sensitive.save', '保存屏蔽词过滤设置')}
      keys={['CheckSensitiveEnabled', 'CheckSensitiveOnPromptEnabled', 'StopOnSensitiveEnabled', 'SensitiveWords']}
    >
      <FieldGrid>
        <OptionField
          name="CheckSensitiveEnabled"
          label={t('pages.settings.operation.sensitive.check', '启用屏蔽词过滤功能')}
          extra={t('pages.settings.operation.sensitive.check.help', '总开关：关闭后不检查任何屏蔽词')}
        />
        <OptionField
          name="CheckSensitiveOnPromptEnabled"
          label={t('pages.settings.operation.sensitive.onPrompt', '启用 Prompt 检查')}
          extra={t('pages.settings.operation.sensitive.onPrompt.help', '检查用户请求中的提示词')}
        />
        <OptionField
          name="StopOnSensitiveEnabled"
          label={t('pages.settings.operation.sensitive.stop', '遇到屏蔽词时拒绝请求')}
          extra={t('pages.settings.operation.sensitive.stop.help', '包含屏蔽词的请求不会发送给上游')}
        />
      </FieldGrid>
      <OptionField
        name="SensitiveWords"
        label={t('pages.settings.operation.sensitive.words', '屏蔽词列表')}
        extra={t('pages.settings.operation.sensitive.words.help', '一行一个屏蔽词，不需要符号分割')}
        input={<Input.TextArea autoSize={{ minRows: 4, maxRows: 12 }} />}
      />
    </OptionSection>
  );
}
