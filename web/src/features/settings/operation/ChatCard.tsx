import { OptionField, OptionSection } from '../OptionSection';
import { useText } from '../../../app/use-text';

/** Chat apps for the "open in chat app" links (JSON, checked on blur). */
export function ChatCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.chat.title', '聊天设置')}
      saveLabel={t('pages.settings.operation.chat.save', '保存聊天设置')}
      keys={['Chats']}
    >
      <OptionField
        name="Chats"
        label={t('pages.settings.operation.chat.chats', '聊天应用')}
        // The placeholders are passed as values: braces in a message are ICU syntax.
        extra={t(
          'pages.settings.operation.chat.chats.help',
          'JSON 数组，每项是一个“应用名称: 链接”的对象；链接中的 {key} 和 {address} 会替换为令牌密钥和服务器地址',
          { key: '{key}', address: '{address}' },
        )}
      />
    </OptionSection>
  );
}
