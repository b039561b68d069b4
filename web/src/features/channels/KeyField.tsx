import { Checkbox, Form, Input, Radio, Select, Space } from 'antd';
import type { RuleRender } from 'antd/es/form';
import { useIntl, type IntlShape } from 'react-intl';
import { ChannelType, keyFormatIssue, splitKeys } from '@aigw/contracts';

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
    case ChannelType.Coze:
      return t({ id: 'pages.channels.form.key.coze', defaultMessage: '请输入扣子的访问令牌（个人访问令牌 pat_...）；模型名即智能体 ID' });
    case ChannelType.Codex:
      return t({
        id: 'pages.channels.form.key.codex',
        defaultMessage: '请输入 ChatGPT 账号的 JSON 凭据：access_token、account_id，以及用于刷新的 refresh_token',
      });
    default:
      return t({ id: 'pages.channels.form.key.placeholder', defaultMessage: '请输入渠道对应的鉴权密钥' });
  }
}

interface KeyFieldProps {
  type: number;
  editing: boolean;
  /** The channel being edited holds many keys. */
  multiKey: boolean;
  batch: boolean;
  onBatchChange(batch: boolean): void;
}

/**
 * The key: required on create, where batch mode takes one key per line and makes one channel
 * each, or one channel holding them all (picked at random or in turn, `multi_key_mode`); when
 * editing, an empty key keeps the stored one, and a channel with many keys takes new keys added
 * to its own or in their place. Vertex AI takes a service-account JSON (several as a JSON array),
 * Codex its ChatGPT account's token JSON. Each key is checked against its type's format as it is
 * typed (contracts' keyFormatIssue, the check channels makes), naming the batch line.
 */
export function KeyField({ type, editing, multiKey, batch, onBatchChange }: KeyFieldProps) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const several = batch || multiKey;
  const multiline = several || type === ChannelType.VertexAI || type === ChannelType.Codex;
  const placeholder = several
    ? t({ id: 'pages.channels.form.key.batch.placeholder', defaultMessage: '请输入密钥，一行一个' })
    : editing
      ? t({ id: 'pages.channels.form.key.keep', defaultMessage: '留空则保持原密钥不变' })
      : keyPrompt(type, intl);

  const formatRule: RuleRender = ({ getFieldValue }) => ({
    validator: async (_rule: unknown, value?: string) => {
      const text = (value ?? '').trim();
      if (text === '') return;
      const keys = several ? splitKeys(text) : [text];
      const stored: unknown = getFieldValue('other');
      const other = typeof stored === 'string' ? stored : '';
      const bad = keys.findIndex((key) => keyFormatIssue(type, key, other) !== null);
      if (bad < 0) return;
      const issue = keyFormatIssue(type, keys[bad]!, other)!;
      const where = keys.length > 1 ? t({ id: 'pages.channels.form.key.line', defaultMessage: '第 {line} 个密钥：' }, { line: bad + 1 }) : '';
      const missing =
        issue.missing.length > 0 ? t({ id: 'pages.channels.form.key.missing', defaultMessage: '（缺少 {fields}）' }, { fields: issue.missing.join(', ') }) : '';
      throw new Error(`${where}${t({ id: 'pages.channels.form.key.format', defaultMessage: '密钥格式不正确。' })}${keyPrompt(type, intl)}${missing}`);
    },
  });
  const required = { required: true, whitespace: true, message: t({ id: 'pages.channels.form.key.required', defaultMessage: '请输入密钥' }) };

  const poolOptions = [
    { value: '', label: t({ id: 'pages.channels.form.multiKey.split', defaultMessage: '每个密钥创建一个渠道' }) },
    { value: 'random', label: t({ id: 'pages.channels.form.multiKey.random', defaultMessage: '一个渠道聚合全部密钥，随机使用' }) },
    { value: 'polling', label: t({ id: 'pages.channels.form.multiKey.polling', defaultMessage: '一个渠道聚合全部密钥，轮询使用' }) },
  ];
  const modeOptions = poolOptions.slice(1).map((option) => ({
    ...option,
    label:
      option.value === 'random'
        ? t({ id: 'pages.channels.keys.mode.random', defaultMessage: '随机' })
        : t({ id: 'pages.channels.keys.mode.polling', defaultMessage: '轮询' }),
  }));

  return (
    <>
      <Form.Item
        name="key"
        label={t({ id: 'pages.channels.form.key', defaultMessage: '密钥' })}
        dependencies={['other']}
        rules={editing ? [formatRule] : [required, formatRule]}
        extra={
          editing ? (
            keyPrompt(type, intl)
          ) : (
            <Checkbox checked={batch} onChange={(event) => onBatchChange(event.target.checked)} style={{ marginTop: 4 }}>
              {t({ id: 'pages.channels.form.key.batch', defaultMessage: '批量创建（一行一个密钥）' })}
            </Checkbox>
          )
        }
      >
        {multiline ? (
          <Input.TextArea autoSize={{ minRows: several ? 4 : 6 }} placeholder={placeholder} />
        ) : (
          <Input placeholder={placeholder} autoComplete="new-password" />
        )}
      </Form.Item>
      {batch && !editing && (
        <Form.Item name="multi_key_mode" label={t({ id: 'pages.channels.form.multiKey', defaultMessage: '批量方式' })}>
          <Radio.Group options={poolOptions} />
        </Form.Item>
      )}
      {multiKey && (
        <Space size="large" wrap>
          <Form.Item name="multi_key_mode" label={t({ id: 'pages.channels.form.multiKey.mode', defaultMessage: '密钥选择方式' })}>
            <Select options={modeOptions} style={{ width: 160 }} />
          </Form.Item>
          <Form.Item name="key_mode" label={t({ id: 'pages.channels.form.keyMode', defaultMessage: '新密钥' })}>
            <Radio.Group
              options={[
                { value: 'append', label: t({ id: 'pages.channels.form.keyMode.append', defaultMessage: '追加到现有密钥' }) },
                { value: 'replace', label: t({ id: 'pages.channels.form.keyMode.replace', defaultMessage: '替换全部密钥' }) },
              ]}
            />
          </Form.Item>
        </Space>
      )}
    </>
  );
}
