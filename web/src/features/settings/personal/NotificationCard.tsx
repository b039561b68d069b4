import { useEffect, useState } from 'react';
import { App, Button, Card, Flex, Form, Input, InputNumber, Popconfirm, QRCode, Select, Skeleton, Typography } from 'antd';
import { NotifyType, GOTIFY_DEFAULT_PRIORITY, type UpdateUserSettingBody, type UserSettingView, type WxPusherQrCode } from '@aigw/contracts';
import { useIntl } from 'react-intl';
import { useText } from '../../../app/use-text';
import { useBindWxPusherMutation, useUnbindWxPusherMutation, useUpdateUserSettingMutation, useUserSettingQuery, useWxPusherQrCodeMutation } from './api';

/** While the QR code is shown, the console asks this often whether it was scanned. */
const POLL_MS = 3_000;

type FormValues = Omit<UpdateUserSettingBody, 'notify_type'> & { notify_type: NotifyType };

/**
 * How the user's own notices reach them (the established product's notification settings): the
 * method and its fields, and the WxPusher binding by QR code (a code
 * expires: the user fetches another).
 */
export function NotificationCard() {
  const t = useText();
  const { data: setting, isLoading } = useUserSettingQuery();
  const [update, { isLoading: saving }] = useUpdateUserSettingMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<FormValues>();
  const notifyType = Form.useWatch('notify_type', form) ?? setting?.notify_type ?? NotifyType.Email;

  useEffect(() => {
    if (setting) form.setFieldsValue(formValues(setting));
  }, [form, setting]);

  const onFinish = async (values: FormValues) => {
    // Secrets left empty keep the stored ones (they are never shown).
    const body: UpdateUserSettingBody = { ...values };
    if (!values.webhook_secret) delete body.webhook_secret;
    if (!values.gotify_token) delete body.gotify_token;
    const saved = await update(body)
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (saved) void message.success(t('pages.settings.personal.notify.saved', '通知设置已保存'));
  };

  const methodOptions = [
    { value: NotifyType.Email, label: t('pages.settings.personal.notify.type.email', '邮件') },
    { value: NotifyType.Webhook, label: 'Webhook' },
    { value: NotifyType.Bark, label: 'Bark' },
    { value: NotifyType.Gotify, label: 'Gotify' },
    { value: NotifyType.WxPusher, label: 'WxPusher' },
  ];
  const keptSecret = t('pages.settings.personal.notify.secretKept', '已设置，留空则不修改');

  return (
    <Card title={t('pages.settings.personal.notify.title', '通知设置')}>
      {isLoading || !setting ? (
        <Skeleton active />
      ) : (
        <Form form={form} layout="vertical" onFinish={(values) => void onFinish(values)} initialValues={formValues(setting)}>
          <Form.Item name="notify_type" label={t('pages.settings.personal.notify.type', '通知方式')}>
            <Select options={methodOptions} aria-label={t('pages.settings.personal.notify.type', '通知方式')} />
          </Form.Item>
          {notifyType === NotifyType.Email && (
            <Form.Item
              name="notification_email"
              label={t('pages.settings.personal.notify.email', '通知邮箱')}
              extra={t('pages.settings.personal.notify.email.help', '留空则发送到账户绑定的邮箱')}
            >
              <Input type="email" />
            </Form.Item>
          )}
          {notifyType === NotifyType.Webhook && (
            <>
              <Form.Item name="webhook_url" label={t('pages.settings.personal.notify.webhookUrl', 'Webhook 地址')} rules={[{ required: true }]}>
                <Input placeholder="https://" />
              </Form.Item>
              <Form.Item
                name="webhook_secret"
                label={t('pages.settings.personal.notify.webhookSecret', 'Webhook 签名密钥')}
                extra={t('pages.settings.personal.notify.webhookSecret.help', '设置后请求带 X-Webhook-Signature 签名头，与系统 Webhook 相同')}
              >
                <Input.Password placeholder={setting.webhook_secret_set ? keptSecret : ''} autoComplete="new-password" />
              </Form.Item>
            </>
          )}
          {notifyType === NotifyType.Bark && (
            <Form.Item
              name="bark_url"
              label={t('pages.settings.personal.notify.barkUrl', 'Bark 推送地址')}
              extra={t('pages.settings.personal.notify.barkUrl.help', '例如 {example}，其中的占位符会被替换为通知的标题和内容', {
                example: 'https://api.day.app/<device key>/{{title}}/{{content}}',
              })}
              rules={[{ required: true }]}
            >
              <Input placeholder="https://api.day.app/" />
            </Form.Item>
          )}
          {notifyType === NotifyType.Gotify && (
            <>
              <Form.Item name="gotify_url" label={t('pages.settings.personal.notify.gotifyUrl', 'Gotify 服务器地址')} rules={[{ required: true }]}>
                <Input placeholder="https://" />
              </Form.Item>
              <Form.Item name="gotify_token" label={t('pages.settings.personal.notify.gotifyToken', 'Gotify 应用令牌')}>
                <Input.Password placeholder={setting.gotify_token_set ? keptSecret : ''} autoComplete="new-password" />
              </Form.Item>
              <Form.Item name="gotify_priority" label={t('pages.settings.personal.notify.gotifyPriority', 'Gotify 消息优先级（0-10）')}>
                <InputNumber min={0} max={10} precision={0} style={{ width: '100%' }} />
              </Form.Item>
            </>
          )}
          {notifyType === NotifyType.WxPusher && <WxPusherBinding uid={setting.wxpusher_uid} />}
          <Button type="primary" htmlType="submit" loading={saving}>
            {t('pages.settings.personal.notify.save', '保存通知设置')}
          </Button>
        </Form>
      )}
    </Card>
  );
}

function formValues(setting: UserSettingView): FormValues {
  return {
    notify_type: setting.notify_type,
    quota_warning_threshold: setting.quota_warning_threshold,
    notification_email: setting.notification_email,
    webhook_url: setting.webhook_url,
    webhook_secret: '',
    bark_url: setting.bark_url,
    gotify_url: setting.gotify_url,
    gotify_token: '',
    gotify_priority: setting.gotify_priority ?? GOTIFY_DEFAULT_PRIORITY,
    accept_unset_model_ratio_model: setting.accept_unset_model_ratio_model,
  };
}

/** The WxPusher binding: the bound uid, or a QR code to scan in WeChat, asked about until scanned or expired. */
function WxPusherBinding({ uid }: { uid: string }) {
  const t = useText();
  const intl = useIntl();
  const { message } = App.useApp();
  const [fetchQrCode, { isLoading: fetching }] = useWxPusherQrCodeMutation();
  const [bind, { isLoading: checking }] = useBindWxPusherMutation();
  const [unbind, { isLoading: unbinding }] = useUnbindWxPusherMutation();
  const [qrCode, setQrCode] = useState<WxPusherQrCode | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const expired = qrCode !== null && now >= qrCode.expires_at;

  const refresh = async () => {
    const fresh = await fetchQrCode()
      .unwrap()
      .catch(() => null);
    setNow(Date.now());
    setQrCode(fresh);
  };

  const check = async (code: string, quiet: boolean) => {
    const result = await bind({ code })
      .unwrap()
      .catch(() => null);
    setNow(Date.now());
    if (result?.bound) {
      setQrCode(null);
      void message.success(t('pages.settings.personal.wxpusher.bound', 'WxPusher 绑定成功！'));
    } else if (result && !quiet) {
      void message.info(t('pages.settings.personal.wxpusher.notScanned', '还未扫码，请用微信扫描二维码'));
    }
  };

  // While a live code is shown: ask now and then whether it was scanned; mark it expired on time.
  useEffect(() => {
    if (!qrCode || expired) return;
    const poll = setInterval(() => void check(qrCode.code, true), POLL_MS);
    const expiry = setTimeout(() => setNow(Date.now()), Math.max(0, qrCode.expires_at - Date.now()));
    return () => {
      clearInterval(poll);
      clearTimeout(expiry);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `check` is recreated each render; the code and its expiry drive the timers
  }, [qrCode, expired]);

  if (uid) {
    return (
      <Flex align="center" justify="space-between" gap={12} wrap style={{ marginBottom: 16 }} role="group" aria-label="WxPusher">
        <Typography.Text>{t('pages.settings.personal.wxpusher.boundAs', '已绑定 WxPusher：{uid}', { uid })}</Typography.Text>
        <Popconfirm title={t('pages.settings.personal.wxpusher.unbind.confirm', '解绑后通知将改为邮件发送，确定解绑？')} onConfirm={() => void unbind()}>
          <Button loading={unbinding}>{t('pages.settings.personal.wxpusher.unbind', '解绑 WxPusher')}</Button>
        </Popconfirm>
      </Flex>
    );
  }

  return (
    <Flex vertical gap={8} style={{ marginBottom: 16 }} role="group" aria-label="WxPusher">
      <Typography.Text type="secondary">{t('pages.settings.personal.wxpusher.help', '用微信扫描二维码关注 WxPusher 后，通知将发送到您的微信')}</Typography.Text>
      {qrCode ? (
        <>
          <QRCode type="svg" value={qrCode.url} size={180} status={expired ? 'expired' : 'active'} onRefresh={() => void refresh()} />
          <Typography.Text type={expired ? 'danger' : 'secondary'}>
            {expired
              ? t('pages.settings.personal.wxpusher.expired', '二维码已过期，请刷新')
              : t('pages.settings.personal.wxpusher.expires', '二维码有效期至 {time}', {
                  time: intl.formatTime(qrCode.expires_at, { hour: '2-digit', minute: '2-digit' }),
                })}
          </Typography.Text>
          <Flex gap={8}>
            <Button loading={fetching} onClick={() => void refresh()}>
              {t('pages.settings.personal.wxpusher.refresh', '刷新二维码')}
            </Button>
            <Button type="primary" disabled={expired} loading={checking} onClick={() => void check(qrCode.code, false)}>
              {t('pages.settings.personal.wxpusher.scanned', '我已扫码')}
            </Button>
          </Flex>
        </>
      ) : (
        <Button loading={fetching} onClick={() => void refresh()} style={{ alignSelf: 'flex-start' }}>
          {t('pages.settings.personal.wxpusher.bind', '绑定 WxPusher')}
        </Button>
      )}
    </Flex>
  );
}
