import { Input, InputNumber } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** SMTP: how the server sends verification and password-reset emails. */
export function SmtpCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.smtp.title', '配置 SMTP')}
      saveLabel={t('pages.settings.system.smtp.save', '保存 SMTP 设置')}
      keys={['SMTPServer', 'SMTPPort', 'SMTPAccount', 'SMTPFrom', 'SMTPToken', 'SMTPSSLEnabled']}
    >
      <FieldGrid>
        <OptionField
          name="SMTPServer"
          label={t('pages.settings.system.smtp.server', 'SMTP 服务器地址')}
          input={<Input placeholder={t('pages.settings.system.smtp.server.placeholder', '例如：smtp.qq.com')} />}
        />
        <OptionField
          name="SMTPPort"
          label={t('pages.settings.system.smtp.port', 'SMTP 端口')}
          extra={t('pages.settings.system.smtp.port.help', '默认 587')}
          input={<InputNumber min={1} max={65535} precision={0} style={{ width: '100%' }} />}
        />
        <OptionField name="SMTPAccount" label={t('pages.settings.system.smtp.account', 'SMTP 账户')} />
        <OptionField
          name="SMTPFrom"
          label={t('pages.settings.system.smtp.from', 'SMTP 发送者邮箱')}
          extra={t('pages.settings.system.smtp.from.help', '通常与 SMTP 账户一致')}
        />
        <OptionField name="SMTPToken" label={t('pages.settings.system.smtp.token', 'SMTP 访问凭证')} />
        <OptionField
          name="SMTPSSLEnabled"
          label={t('pages.settings.system.smtp.ssl', '启用SMTP SSL')}
          extra={t('pages.settings.system.smtp.ssl.help', '使用 SSL 直连（常见端口 465）')}
        />
      </FieldGrid>
    </OptionSection>
  );
}
