import { App, Form, Input, Modal, Select, Switch } from 'antd';
import type { WebhookEndpoint, WebhookWithSecret } from '@aigw/contracts';
import type { ApiError } from '../../../api/base-query';
import { useText } from '../../../app/use-text';
import { useCreateWebhookMutation, useUpdateWebhookMutation } from './api';
import { descriptionProblem, fieldOfServerMessage, secretProblem, subjectChoices, subjectsProblem, urlProblem } from './webhook-rules';

interface EndpointFormValues {
  url: string;
  subjects: string[];
  description: string;
  enabled: boolean;
  /** Create only; blank: the server generates one. */
  secret: string;
}

interface EndpointDialogProps {
  /** The endpoint to edit; none to create one. */
  endpoint?: WebhookEndpoint;
  onClose: () => void;
  /** After a create: the answer carries the secret, shown once. */
  onCreated: (created: WebhookWithSecret) => void;
}

/** Create or edit an endpoint: URL, event filter, description, enabled (and, when creating, an optional secret). */
export function EndpointDialog({ endpoint, onClose, onCreated }: EndpointDialogProps) {
  const t = useText();
  const { message } = App.useApp();
  const [form] = Form.useForm<EndpointFormValues>();
  const [createWebhook, { isLoading: creating }] = useCreateWebhookMutation();
  const [updateWebhook, { isLoading: updating }] = useUpdateWebhookMutation();
  const rule = <T,>(problem: (value: T) => string | null) => ({
    validator: async (_: unknown, value: T) => {
      const text = problem(value);
      if (text) throw new Error(text);
    },
  });

  /** A refusal naming a field (the egress guard on `url`, for one) is shown at that field. */
  const showRefusal = (error: ApiError) => {
    const named = fieldOfServerMessage(error.message);
    if (named) form.setFields([{ name: named.field, errors: [named.text] }]);
    else void message.error(error.message);
  };

  const onFinish = async (values: EndpointFormValues) => {
    const fields = {
      url: values.url.trim(),
      subjects: values.subjects.map((pattern) => pattern.trim()),
      description: values.description.trim(),
      enabled: values.enabled,
    };
    try {
      if (endpoint) {
        await updateWebhook({ id: endpoint.id, ...fields }).unwrap();
        void message.success(t('pages.settings.webhooks.form.updated', '端点已更新'));
        onClose();
      } else {
        const created = await createWebhook({ ...fields, ...(values.secret ? { secret: values.secret } : {}) }).unwrap();
        onClose();
        onCreated(created);
      }
    } catch (error) {
      showRefusal(error as ApiError);
    }
  };

  return (
    <Modal
      open
      title={endpoint ? t('pages.settings.webhooks.form.editTitle', '编辑 Webhook 端点') : t('pages.settings.webhooks.form.createTitle', '添加 Webhook 端点')}
      okText={t('pages.settings.webhooks.form.submit', '保存')}
      cancelText={t('pages.settings.webhooks.form.cancel', '取消')}
      confirmLoading={creating || updating}
      onOk={() => form.submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Form<EndpointFormValues>
        form={form}
        name="webhook-endpoint"
        layout="vertical"
        onFinish={(values) => void onFinish(values)}
        initialValues={{
          url: endpoint?.url ?? '',
          subjects: endpoint?.subjects ?? [],
          description: endpoint?.description ?? '',
          enabled: endpoint?.enabled ?? true,
          secret: '',
        }}
      >
        <Form.Item
          name="url"
          label={t('pages.settings.webhooks.form.url', '回调地址')}
          extra={t('pages.settings.webhooks.form.url.help', '仅限 http/https；内网、回环和云元数据地址需先在运营设置中允许私有网络')}
          rules={[rule((value: string | undefined) => urlProblem(t, value))]}
        >
          <Input placeholder="https://hooks.example.com/aigw" />
        </Form.Item>
        <Form.Item
          name="subjects"
          label={t('pages.settings.webhooks.form.subjects', '订阅事件')}
          extra={t('pages.settings.webhooks.form.subjects.help', '可输入模式：* 代表一段，末尾的 > 代表其余部分，例如 billing.> 或 *.channel.*')}
          rules={[rule((value: string[] | undefined) => subjectsProblem(t, value))]}
        >
          <Select
            mode="tags"
            tokenSeparators={[',', ' ']}
            placeholder={t('pages.settings.webhooks.form.subjects.placeholder', '选择或输入事件')}
            options={subjectChoices().map((subject) => ({ value: subject, label: subject }))}
          />
        </Form.Item>
        <Form.Item
          name="description"
          label={t('pages.settings.webhooks.form.description', '描述')}
          rules={[rule((value: string | undefined) => descriptionProblem(t, value))]}
        >
          <Input placeholder={t('pages.settings.webhooks.form.description.placeholder', '用途，便于识别（可选）')} />
        </Form.Item>
        {!endpoint && (
          <Form.Item
            name="secret"
            label={t('pages.settings.webhooks.form.secret', '签名密钥')}
            extra={t('pages.settings.webhooks.form.secret.help', '留空则自动生成；密钥只在保存后显示一次')}
            rules={[rule((value: string | undefined) => secretProblem(t, value))]}
          >
            <Input.Password autoComplete="new-password" placeholder={t('pages.settings.webhooks.form.secret.placeholder', '留空自动生成')} />
          </Form.Item>
        )}
        <Form.Item name="enabled" label={t('pages.settings.webhooks.form.enabled', '启用')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </Modal>
  );
}
