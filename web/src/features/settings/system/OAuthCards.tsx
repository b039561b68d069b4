import { Input } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { CallbackUrl } from './CallbackUrl';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** The code-hosting service's OAuth app (GitHub). */
export function GitHubCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.github.title', '配置 GitHub OAuth App')}
      saveLabel={t('pages.settings.system.github.save', '保存 GitHub OAuth 设置')}
      keys={['GitHubClientId', 'GitHubClientSecret']}
      help={t(
        'pages.settings.system.github.help',
        '用以支持通过 GitHub 进行登录注册：在 GitHub 的 Developer settings 中创建 OAuth App，主页地址填写服务器地址',
      )}
    >
      <CallbackUrl path="/oauth/github" />
      <FieldGrid columns={2}>
        <OptionField name="GitHubClientId" label={t('pages.settings.system.github.clientId', 'GitHub Client ID')} />
        <OptionField name="GitHubClientSecret" label={t('pages.settings.system.github.clientSecret', 'GitHub Client Secret')} />
      </FieldGrid>
    </OptionSection>
  );
}

/** The second OAuth service (Linux DO Connect). */
export function LinuxDOCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.linuxdo.title', '配置 Linux DO OAuth')}
      saveLabel={t('pages.settings.system.linuxdo.save', '保存 Linux DO OAuth 设置')}
      keys={['LinuxDOClientId', 'LinuxDOClientSecret']}
      help={t('pages.settings.system.linuxdo.help', '用以支持通过 Linux DO 进行登录注册：在 Linux DO Connect 中创建应用')}
    >
      <CallbackUrl path="/oauth/linuxdo" />
      <FieldGrid columns={2}>
        <OptionField name="LinuxDOClientId" label={t('pages.settings.system.linuxdo.clientId', 'Linux DO Client ID')} />
        <OptionField name="LinuxDOClientSecret" label={t('pages.settings.system.linuxdo.clientSecret', 'Linux DO Client Secret')} />
      </FieldGrid>
    </OptionSection>
  );
}

/** A generic OpenID Connect provider. */
export function OidcCard() {
  const t = useText();
  const urlInput = <Input placeholder="https://" />;
  return (
    <OptionSection
      title={t('pages.settings.system.oidc.title', '配置 OIDC')}
      saveLabel={t('pages.settings.system.oidc.save', '保存 OIDC 设置')}
      keys={['oidc.client_id', 'oidc.client_secret', 'oidc.well_known', 'oidc.authorization_endpoint', 'oidc.token_endpoint', 'oidc.user_info_endpoint']}
      help={t('pages.settings.system.oidc.help', '用以支持通过 OIDC 登录，例如 Okta、Auth0 等兼容 OIDC 协议的身份提供商')}
    >
      <CallbackUrl path="/oauth/oidc" />
      <FieldGrid columns={2}>
        <OptionField name="oidc.client_id" label={t('pages.settings.system.oidc.clientId', 'Client ID')} />
        <OptionField name="oidc.client_secret" label={t('pages.settings.system.oidc.clientSecret', 'Client Secret')} />
        <OptionField
          name="oidc.well_known"
          label={t('pages.settings.system.oidc.wellKnown', 'Well-Known URL')}
          extra={t('pages.settings.system.oidc.wellKnown.help', 'OIDC 服务的发现地址，通常以 /.well-known/openid-configuration 结尾')}
          input={urlInput}
        />
        <OptionField
          name="oidc.authorization_endpoint"
          label={t('pages.settings.system.oidc.authorizationEndpoint', 'Authorization Endpoint')}
          input={urlInput}
        />
        <OptionField name="oidc.token_endpoint" label={t('pages.settings.system.oidc.tokenEndpoint', 'Token Endpoint')} input={urlInput} />
        <OptionField name="oidc.user_info_endpoint" label={t('pages.settings.system.oidc.userInfoEndpoint', 'User Info Endpoint')} input={urlInput} />
      </FieldGrid>
    </OptionSection>
  );
}
