import { Input, InputNumber } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/**
 * SMTP: how the server sends verification and password-reset emails. The private-network switch
 * is saved before the server (keys order), since the server's save is judged by it.
 */
export function SmtpCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.smtp.title', '配置 SMTP')}
      saveLabel={t('pages.settings.system.smtp.save', '保存 SMTP 设置')}
      keys={['AllowPrivateNetworkSmtp', 'SMTPServer', 'SMTPPort', 'SMTPAccount', 'SMTPFrom', 'SMTPToken', 'SMTPSSLEnabled']}
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
        <OptionField
          name="AllowPrivateNetworkSmtp"
          label={t('pages.settings.system.smtp.privateNetwork', '允许内网 SMTP 服务器')}
          extra={t(
            'pages.settings.system.smtp.privateNetwork.help',
            '开启后 SMTP 服务器可以是本机或内网地址（如内部邮件中继）；关闭时保存和发信都会拒绝这类地址。仅在信任该网络时开启。',
          )}
        />
      </FieldGrid>
    </OptionSection>
  );
}
