import { Alert, Form, Input, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { ChannelType } from '@aigw/contracts';
import { defaultBaseUrl } from './channel-types';
import { isJsonObjectOrBlank } from './form-values';

const REGION_EXAMPLE = { default: 'us-central1', 'claude-3-5-sonnet-20240620': 'europe-west1' };

/** The types whose `other` field the form shows (its meaning differs per type). */
export const typesWithOther: readonly number[] = [
  ChannelType.Azure,
  ChannelType.Custom,
  ChannelType.Xunfei,
  ChannelType.AIProxyLibrary,
  ChannelType.Cloudflare,
  ChannelType.VertexAI,
  ChannelType.AWS,
  ChannelType.Coze,
];

/**
 * The fields that depend on the channel type (docs/product.md section 6): where the upstream is
 * (base URL, Azure endpoint, full custom URL, private deployment, Suno base path) and what `other`
 * holds (Azure API version, custom extra settings, Spark version, knowledge base id, account id,
 * Vertex region, Bedrock region when the key has none, Coze bot id).
 */
export function TypeFields({ type }: { type: number }) {
  const intl = useIntl();
  const form = Form.useFormInstance();
  const t = intl.formatMessage;

  const baseUrl = () => {
    switch (type) {
      case ChannelType.Azure:
        return (
          <>
            <Alert
              type="warning"
              showIcon
              style={{ marginBottom: 16 }}
              title={t({
                id: 'pages.channels.form.azure.notice',
                defaultMessage: '注意，模型部署名称必须和模型名称保持一致，因为请求体中的 model 参数会被替换为部署名称（模型名称中的点会被剔除）',
              })}
            />
            <Form.Item name="base_url" label={t({ id: 'pages.channels.form.azure.endpoint', defaultMessage: 'AZURE_OPENAI_ENDPOINT' })}>
              <Input
                placeholder={t({
                  id: 'pages.channels.form.azure.endpoint.placeholder',
                  defaultMessage: '请输入 AZURE_OPENAI_ENDPOINT，例如：https://docs-test-001.openai.azure.com',
                })}
                autoComplete="off"
              />
            </Form.Item>
          </>
        );
      case ChannelType.Custom:
        return (
          <>
            <Alert
              type="warning"
              showIcon
              style={{ marginBottom: 16 }}
              title={t({
                id: 'pages.channels.form.custom.notice',
                defaultMessage: '如果你对接的是上游 One API 或者 New API 等转发项目，请使用 OpenAI 类型，不要使用此类型，除非你知道你在做什么。',
              })}
            />
            <Form.Item
              name="base_url"
              label={t({ id: 'pages.channels.form.custom.url', defaultMessage: '完整的 Base URL，支持变量{variable}' }, { variable: '{model}' })}
              rules={[
                { required: true, whitespace: true, message: t({ id: 'pages.channels.form.custom.url.required', defaultMessage: '请输入完整的 Base URL' }) },
              ]}
            >
              <Input
                placeholder={t({
                  id: 'pages.channels.form.custom.url.placeholder',
                  defaultMessage: '请输入完整的URL，例如：https://api.openai.com/v1/chat/completions',
                })}
                autoComplete="off"
              />
            </Form.Item>
          </>
        );
      case ChannelType.FastGPT:
        return (
          <Form.Item name="base_url" label={t({ id: 'pages.channels.form.fastgpt.url', defaultMessage: '私有部署地址' })}>
            <Input
              placeholder={t({
                id: 'pages.channels.form.fastgpt.url.placeholder',
                defaultMessage: '请输入私有部署地址，格式为：https://fastgpt.run/api/openapi',
              })}
              autoComplete="off"
            />
          </Form.Item>
        );
      case ChannelType.SunoAPI:
        return (
          <Form.Item
            name="base_url"
            label={t({ id: 'pages.channels.form.suno.url', defaultMessage: 'API 地址' })}
            extra={t({ id: 'pages.channels.form.suno.notice', defaultMessage: '注意非Chat API，请务必填写正确的API地址，否则可能导致无法使用' })}
          >
            <Input
              placeholder={t({
                id: 'pages.channels.form.suno.url.placeholder',
                defaultMessage: '请输入到 /suno 前的路径，通常就是域名，例如：https://api.example.com',
              })}
              autoComplete="off"
            />
          </Form.Item>
        );
      default:
        return (
          <Form.Item
            name="base_url"
            label={t({ id: 'pages.channels.form.baseUrl', defaultMessage: '代理地址' })}
            extra={t({ id: 'pages.channels.form.baseUrl.extra', defaultMessage: '此项可选，用于通过代理站来进行 API 调用；留空则使用该类型的默认地址' })}
          >
            <Input
              placeholder={
                defaultBaseUrl(type) ?? t({ id: 'pages.channels.form.baseUrl.placeholder', defaultMessage: '此项可选，用于通过代理站来进行 API 调用' })
              }
              autoComplete="off"
            />
          </Form.Item>
        );
    }
  };

  const other = () => {
    switch (type) {
      case ChannelType.Azure:
        return (
          <Form.Item name="other" label={t({ id: 'pages.channels.form.azure.version', defaultMessage: '默认 API 版本' })}>
            <Input
              placeholder={t({
                id: 'pages.channels.form.azure.version.placeholder',
                defaultMessage: '请输入默认 API 版本，例如：2024-12-01-preview，该配置可以被实际的请求查询参数所覆盖',
              })}
              autoComplete="off"
            />
          </Form.Item>
        );
      case ChannelType.Custom:
        return (
          <Form.Item
            name="other"
            label={t({ id: 'pages.channels.form.custom.extra', defaultMessage: '额外设置' })}
            rules={[
              {
                validator: async (_rule, value?: string) => {
                  if (!isJsonObjectOrBlank(value))
                    throw new Error(t({ id: 'pages.channels.form.custom.extra.invalid', defaultMessage: '额外设置必须是合法的 JSON 格式！' }));
                },
              },
            ]}
          >
            <Input.TextArea
              autoSize={{ minRows: 2 }}
              placeholder={t({ id: 'pages.channels.form.custom.extra.placeholder', defaultMessage: '此项可选，为一个 JSON 对象' })}
            />
          </Form.Item>
        );
      case ChannelType.Xunfei:
        return (
          <Form.Item name="other" label={t({ id: 'pages.channels.form.spark.version', defaultMessage: '模型版本' })}>
            <Input
              placeholder={t({
                id: 'pages.channels.form.spark.version.placeholder',
                defaultMessage: '请输入星火大模型版本，注意是接口地址中的版本号，例如：v2.1',
              })}
              autoComplete="off"
            />
          </Form.Item>
        );
      case ChannelType.AIProxyLibrary:
        return (
          <Form.Item name="other" label={t({ id: 'pages.channels.form.knowledgeBase', defaultMessage: '知识库 ID' })}>
            <Input
              placeholder={t({ id: 'pages.channels.form.knowledgeBase.placeholder', defaultMessage: '请输入知识库 ID，例如：123456' })}
              autoComplete="off"
            />
          </Form.Item>
        );
      case ChannelType.Cloudflare:
        return (
          <Form.Item name="other" label={t({ id: 'pages.channels.form.accountId', defaultMessage: 'Account ID' })}>
            <Input
              placeholder={t({ id: 'pages.channels.form.accountId.placeholder', defaultMessage: '请输入Account ID，例如：d6b5da8hk1awo8nap34ube6gh' })}
              autoComplete="off"
            />
          </Form.Item>
        );
      case ChannelType.Coze:
        return (
          <Form.Item
            name="other"
            label={t({ id: 'pages.channels.form.cozeBot', defaultMessage: '智能体 ID' })}
            extra={t({ id: 'pages.channels.form.cozeBot.extra', defaultMessage: '留空时使用请求的模型名作为智能体 ID' })}
          >
            <Input placeholder="7350000000000000000" autoComplete="off" />
          </Form.Item>
        );
      case ChannelType.AWS:
        return (
          <Form.Item
            name="other"
            label={t({ id: 'pages.channels.form.awsRegion', defaultMessage: 'AWS 地区' })}
            extra={t({ id: 'pages.channels.form.awsRegion.extra', defaultMessage: '密钥中未写地区（Ak|Sk）时使用此地区' })}
          >
            <Input placeholder={t({ id: 'pages.channels.form.awsRegion.placeholder', defaultMessage: '例如：us-east-1' })} autoComplete="off" />
          </Form.Item>
        );
      case ChannelType.VertexAI:
        return (
          <Form.Item
            name="other"
            label={t({ id: 'pages.channels.form.region', defaultMessage: '部署地区' })}
            extra={
              <Typography.Link onClick={() => form.setFieldValue('other', JSON.stringify(REGION_EXAMPLE, null, 2))}>
                {t({ id: 'pages.channels.form.fillTemplate', defaultMessage: '填入模板' })}
              </Typography.Link>
            }
            rules={[
              {
                validator: async (_rule, value?: string) => {
                  if (value?.trim().startsWith('{') && !isJsonObjectOrBlank(value))
                    throw new Error(t({ id: 'pages.channels.form.region.invalid', defaultMessage: '部署地区必须是地区名称或合法的 JSON 格式！' }));
                },
              },
            ]}
          >
            <Input.TextArea
              autoSize={{ minRows: 2 }}
              placeholder={t(
                { id: 'pages.channels.form.region.placeholder', defaultMessage: '请输入部署地区，例如：us-central1；支持使用模型映射格式 {example}' },
                { example: JSON.stringify(REGION_EXAMPLE) },
              )}
            />
          </Form.Item>
        );
      default:
        return null;
    }
  };

  return (
    <>
      {baseUrl()}
      {other()}
      {type === ChannelType.OpenAI && (
        <Form.Item
          name="openai_organization"
          label={t({ id: 'pages.channels.form.organization', defaultMessage: '组织' })}
          extra={t({ id: 'pages.channels.form.organization.extra', defaultMessage: '组织，可选，不填则为默认组织' })}
        >
          <Input placeholder={t({ id: 'pages.channels.form.organization.placeholder', defaultMessage: '请输入组织org-xxx' })} autoComplete="off" />
        </Form.Item>
      )}
    </>
  );
}
