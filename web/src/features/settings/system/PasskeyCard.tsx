import { Input, Select } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/**
 * Passkeys (the established product's passkey.* settings): on or off, and the relying party,
 * which defaults to ServerAddress (its host is the id, its origin the one allowed).
 */
export function PasskeyCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.passkey.title', '配置通行密钥（Passkey）')}
      saveLabel={t('pages.settings.system.passkey.save', '保存通行密钥设置')}
      keys={[
        'passkey.enabled',
        'passkey.rp_display_name',
        'passkey.rp_id',
        'passkey.origins',
        'passkey.allow_insecure_origin',
        'passkey.user_verification',
        'passkey.attachment_preference',
      ]}
      help={t('pages.settings.system.passkey.help', '允许用户使用通行密钥登录和进行安全验证。留空的项目取自服务器地址：其域名为 RP ID，其源为允许的来源。')}
    >
      <FieldGrid columns={2}>
        <OptionField name="passkey.enabled" label={t('pages.settings.system.passkey.enabled', '允许通过通行密钥登录和验证')} />
        <OptionField name="passkey.allow_insecure_origin" label={t('pages.settings.system.passkey.allowInsecure', '允许非 HTTPS 来源（仅测试用）')} />
        <OptionField name="passkey.rp_display_name" label={t('pages.settings.system.passkey.displayName', '显示名称（默认为系统名称）')} />
        <OptionField
          name="passkey.rp_id"
          label={t('pages.settings.system.passkey.rpId', 'RP ID（域名）')}
          input={<Input placeholder={t('pages.settings.system.passkey.rpId.placeholder', '例如：example.com')} />}
        />
        <OptionField
          name="passkey.origins"
          label={t('pages.settings.system.passkey.origins', '允许的来源（逗号分隔）')}
          input={<Input placeholder={t('pages.settings.system.passkey.origins.placeholder', '例如：https://example.com,https://www.example.com')} />}
        />
        <OptionField
          name="passkey.user_verification"
          label={t('pages.settings.system.passkey.userVerification', '用户验证要求')}
          input={<Select options={['preferred', 'required', 'discouraged'].map((value) => ({ value, label: value }))} />}
        />
        <OptionField
          name="passkey.attachment_preference"
          label={t('pages.settings.system.passkey.attachment', '认证器类型')}
          input={
            <Select
              options={[
                { value: '', label: t('pages.settings.system.passkey.attachment.any', '不限') },
                { value: 'platform', label: t('pages.settings.system.passkey.attachment.platform', '设备内置（platform）') },
                { value: 'cross-platform', label: t('pages.settings.system.passkey.attachment.crossPlatform', '安全密钥（cross-platform）') },
              ]}
            />
          }
        />
      </FieldGrid>
    </OptionSection>
  );
}
