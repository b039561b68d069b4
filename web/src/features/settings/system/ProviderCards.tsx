import { Input } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** The WeChat server that relays official-account login codes. */
export function WeChatCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.wechat.title', '配置 WeChat Server')}
      saveLabel={t('pages.settings.system.wechat.save', '保存 WeChat Server 设置')}
      keys={['WeChatServerAddress', 'WeChatServerToken', 'WeChatAccountQRCodeImageURL']}
      help={t('pages.settings.system.wechat.help', '用以支持通过微信进行登录注册：需要部署 WeChat Server 并关联公众号')}
    >
      <FieldGrid>
        <OptionField
          name="WeChatServerAddress"
          label={t('pages.settings.system.wechat.serverAddress', 'WeChat Server 服务器地址')}
          input={<Input placeholder={t('pages.settings.system.wechat.serverAddress.placeholder', '例如：https://yourdomain.com')} />}
        />
        <OptionField name="WeChatServerToken" label={t('pages.settings.system.wechat.serverToken', 'WeChat Server 访问凭证')} />
        <OptionField
          name="WeChatAccountQRCodeImageURL"
          label={t('pages.settings.system.wechat.qrCode', '微信公众号二维码图片链接')}
          input={<Input placeholder="https://" />}
        />
      </FieldGrid>
    </OptionSection>
  );
}

/** The Telegram login widget's bot. */
export function TelegramCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.telegram.title', '配置 Telegram 登录')}
      saveLabel={t('pages.settings.system.telegram.save', '保存 Telegram 登录设置')}
      keys={['TelegramBotToken', 'TelegramBotName']}
      help={t('pages.settings.system.telegram.help', '用以支持通过 Telegram 进行登录：在 @BotFather 创建机器人，并用 /setdomain 设置为本站域名')}
    >
      <FieldGrid columns={2}>
        <OptionField name="TelegramBotToken" label={t('pages.settings.system.telegram.botToken', 'Telegram Bot Token')} />
        <OptionField name="TelegramBotName" label={t('pages.settings.system.telegram.botName', 'Telegram Bot 名称')} />
      </FieldGrid>
    </OptionSection>
  );
}

/** The human-check widget (Turnstile) on login, register, verification and reset. */
export function TurnstileCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.turnstile.title', '配置 Turnstile')}
      saveLabel={t('pages.settings.system.turnstile.save', '保存 Turnstile 设置')}
      keys={['TurnstileSiteKey', 'TurnstileSecretKey']}
      help={t('pages.settings.system.turnstile.help', '用以支持用户校验：在 Cloudflare 控制台中创建 Turnstile 站点')}
    >
      <FieldGrid columns={2}>
        <OptionField name="TurnstileSiteKey" label={t('pages.settings.system.turnstile.siteKey', 'Turnstile Site Key')} />
        <OptionField name="TurnstileSecretKey" label={t('pages.settings.system.turnstile.secretKey', 'Turnstile Secret Key')} />
      </FieldGrid>
    </OptionSection>
  );
}

/** WxPusher (users' WeChat notices, bound by QR code) and the per-user notification limit. */
export function WxPusherCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.wxpusher.title', '配置 WxPusher 与用户通知')}
      saveLabel={t('pages.settings.system.wxpusher.save', '保存 WxPusher 与通知设置')}
      keys={['WxPusherAppToken', 'WxPusherBaseUrl', 'NotifyLimitCount', 'NotificationLimitDurationMinute']}
      help={t('pages.settings.system.wxpusher.help', '用户可扫码绑定 WxPusher，通过微信接收余额预警等通知：在 WxPusher 创建应用并填入其 AppToken')}
    >
      <FieldGrid>
        <OptionField name="WxPusherAppToken" label={t('pages.settings.system.wxpusher.appToken', 'WxPusher AppToken')} />
        <OptionField
          name="WxPusherBaseUrl"
          label={t('pages.settings.system.wxpusher.baseUrl', 'WxPusher 接口地址')}
          input={<Input placeholder="https://wxpusher.zjiecode.com" />}
        />
        <OptionField name="NotifyLimitCount" label={t('pages.settings.system.notify.limitCount', '每位用户同类通知上限（次）')} />
        <OptionField name="NotificationLimitDurationMinute" label={t('pages.settings.system.notify.limitMinutes', '通知上限的统计时长（分钟）')} />
      </FieldGrid>
    </OptionSection>
  );
}
