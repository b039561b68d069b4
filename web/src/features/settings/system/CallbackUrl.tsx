import { App, Button, Form, Input, Space } from 'antd';
import { copyText } from '../../../lib/clipboard';
import { toFormValue } from '../option-values';
import { useGetOptionsQuery } from '../options-api';
import { useText } from '../../../app/use-text';

/** The callback URL an OAuth app must be registered with: the stored server address + `path`. */
export function CallbackUrl({ path }: { path: string }) {
  const t = useText();
  const { message } = App.useApp();
  const { data: stored } = useGetOptionsQuery();
  const server = String(toFormValue('ServerAddress', stored?.ServerAddress) ?? '');
  const url = `${server}${path}`;
  const id = `callback-url${path.replace(/\W/g, '-')}`;
  return (
    <Form.Item
      label={t('pages.settings.system.oauth.callbackUrl', '回调地址')}
      htmlFor={id}
      extra={t('pages.settings.system.oauth.callbackUrl.help', '在第三方平台创建应用时填写此地址，它由上方的服务器地址生成')}
    >
      <Space.Compact style={{ width: '100%' }}>
        <Input id={id} value={url} readOnly />
        <Button
          onClick={() =>
            void copyText(url).then((copied) => {
              if (copied) void message.success(t('common.copied', '已复制：{text}', { text: url }));
            })
          }
        >
          {t('pages.settings.system.oauth.callbackUrl.copy', '复制')}
        </Button>
      </Space.Compact>
    </Form.Item>
  );
}
