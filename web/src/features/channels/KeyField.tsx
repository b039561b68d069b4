import { Checkbox, Form, Input } from 'antd';
import { useIntl, type IntlShape } from 'react-intl';
import { ChannelType } from '@aigw/contracts';

/** The key format a type expects, as the input's hint. */
function keyPrompt(type: number, intl: IntlShape): string {
  const t = intl.formatMessage;
  switch (type) {
    case ChannelType.Baidu:
      return t({ id: 'pages.channels.form.key.baidu', defaultMessage: '按照如下格式输入：APIKey|SecretKey' });
    case ChannelType.Xunfei:
      return t({ id: 'pages.channels.form.key.xunfei', defaultMessage: '按照如下格式输入：APPID|APISecret|APIKey' });
    case ChannelType.FastGPT:
      return t({
        id: 'pages.channels.form.key.fastgpt',
        defaultMessage: '按照如下格式输入：APIKey-AppId，例如：fastgpt-0sp2gtvfdgyi4k30jwlgwf1i-64f335d84283f05518e9e041',
      });
    case ChannelType.Tencent:
      return t({ id: 'pages.channels.form.key.tencent', defaultMessage: '按照如下格式输入：AppId|SecretId|SecretKey' });
    case ChannelType.AWS:
      return t({ id: 'pages.channels.form.key.aws', defaultMessage: '按照如下格式输入：Ak|Sk|Region' });
    case ChannelType.VertexAI:
      return t({ id: 'pages.channels.form.key.vertex', defaultMessage: '请输入服务账号的 JSON 密钥（鉴权 JSON）' });
    default:
      return t({ id: 'pages.channels.form.key.placeholder', defaultMessage: '请输入渠道对应的鉴权密钥' });
  }
}

interface KeyFieldProps {
  type: number;
  editing: boolean;
  batch: boolean;
  onBatchChange(batch: boolean): void;
}

/**
 * The key: required on create, where batch mode takes one key per line (one channel each);
 * when editing, an empty key keeps the stored one. Vertex AI takes a service-account JSON.
 */
export function KeyField({ type, editing, batch, onBatchChange }: KeyFieldProps) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const multiline = batch || type === ChannelType.VertexAI;
  const placeholder = batch
    ? t({ id: 'pages.channels.form.key.batch.placeholder', defaultMessage: '请输入密钥，一行一个' })
    : editing
      ? t({ id: 'pages.channels.form.key.keep', defaultMessage: '留空则保持原密钥不变' })
      : keyPrompt(type, intl);

  return (
    <Form.Item
      name="key"
      label={t({ id: 'pages.channels.form.key', defaultMessage: '密钥' })}
      rules={editing ? [] : [{ required: true, whitespace: true, message: t({ id: 'pages.channels.form.key.required', defaultMessage: '请输入密钥' }) }]}
      extra={
        editing ? (
          keyPrompt(type, intl)
        ) : (
          <Checkbox checked={batch} onChange={(event) => onBatchChange(event.target.checked)} style={{ marginTop: 4 }}>
            {t({ id: 'pages.channels.form.key.batch', defaultMessage: '批量创建（一行一个密钥，每个密钥创建一个渠道）' })}
          </Checkbox>
        )
      }
    >
      {multiline ? (
        <Input.TextArea autoSize={{ minRows: batch ? 4 : 6 }} placeholder={placeholder} />
      ) : (
        <Input placeholder={placeholder} autoComplete="new-password" />
      )}
    </Form.Item>
  );
}
