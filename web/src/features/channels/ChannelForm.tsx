import { useMemo, useState } from 'react';
import { Alert, App, Button, Divider, Form, Input, InputNumber, Select, Space, Spin, Switch, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { createChannelBodySchema, updateChannelBodySchema } from '@aigw/contracts';
import { useGroupNamesQuery } from '../groups/api';
import { useLimitUse } from '../limits/api';
import { useChannelQuery, useCreateChannelMutation, useUpdateChannelMutation } from './api';
import { channelTypeName, selectableChannelTypes } from './channel-types';
import { changedFields, emptyChannelForm, fieldsFromForm, formFromChannel, isJsonObjectOrBlank, parseInteger, type ChannelFormValues } from './form-values';
import { KeyField } from './KeyField';
import { RateLimitFields } from '../../components/RateLimitFields';
import { RevealKeyButton } from './RevealKeyButton';
import { useAccess } from '../../app/hooks';
import { ModelTools, useModelOptions, useRelatedModels } from './ModelTools';
import { issueText, schemaRule, type SchemaIssue } from './schema-rules';
import { TypeFields } from './TypeFields';
import { useFailureText, useShowFailure } from './use-failure';

const MODEL_MAPPING_EXAMPLE = { 'gpt-3.5-turbo': 'gpt-3.5-turbo-0125' };
const STATUS_CODE_MAPPING_EXAMPLE = { 400: '500' };
const PARAM_OVERRIDE_EXAMPLE = { temperature: 0 };
const SETTING_EXAMPLE = { force_format: true };

export interface ChannelFormProps {
  /** Edit this channel; create when absent. */
  channelId?: number;
  onDone(): void;
  onCancel(): void;
}

/** The channel editor shared by the list's drawer and the /channel/add and /channel/edit/:id pages. */
export function ChannelForm({ channelId, onDone, onCancel }: ChannelFormProps) {
  const failureText = useFailureText();
  const { data, error, isLoading } = useChannelQuery(channelId ?? 0, { skip: channelId === undefined });
  if (channelId === undefined) return <ChannelFormBody initial={emptyChannelForm} onDone={onDone} onCancel={onCancel} />;
  if (error) return <Alert type="error" showIcon title={failureText(error)} />;
  if (isLoading || !data) return <Spin style={{ display: 'block', margin: '48px auto' }} />;
  return <ChannelFormBody key={channelId} channelId={channelId} initial={formFromChannel(data)} onDone={onDone} onCancel={onCancel} />;
}

interface BodyProps extends ChannelFormProps {
  initial: ChannelFormValues;
}

function ChannelFormBody({ channelId, initial, onDone, onCancel }: BodyProps) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const { message } = App.useApp();
  const showFailure = useShowFailure();
  const [form] = Form.useForm<ChannelFormValues>();
  // The stored channel as loaded: an edit sends what differs from it.
  const [stored] = useState(initial);
  const editing = channelId !== undefined;
  const { isAdmin, isRoot } = useAccess();
  const allowPrivateNetwork = Form.useWatch('allow_private_network', form) ?? stored.allow_private_network;
  const type = Form.useWatch('type', form) ?? stored.type;
  const models = Form.useWatch('models', form);
  const [batch, setBatch] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const { data: groupNames } = useGroupNamesQuery();
  // What the channel's limits count now (routing skips it at a limit), shown under each.
  const use = useLimitUse(editing ? { scope: 'channel', id: channelId } : null);
  const modelOptions = useModelOptions(models);
  const related = useRelatedModels();
  const [create, { isLoading: creating }] = useCreateChannelMutation();
  const [update, { isLoading: updating }] = useUpdateChannelMutation();
  const fields = createChannelBodySchema.shape;

  const typeOptions = useMemo(() => selectableChannelTypes.map((value) => ({ value, label: intl.formatMessage(channelTypeName(value)) })), [intl]);
  const groupOptions = useMemo(
    () => [...new Set([...(groupNames ?? []), ...stored.groups])].map((group) => ({ value: group, label: group })),
    [groupNames, stored.groups],
  );

  const jsonRule = (text: string) => ({
    validator: async (_rule: unknown, value?: string) => {
      if (!isJsonObjectOrBlank(value)) throw new Error(text);
    },
  });
  const fillTemplate = (name: keyof ChannelFormValues, example: object) => (
    <Typography.Link onClick={() => form.setFieldValue(name, JSON.stringify(example, null, 2))}>
      {t({ id: 'pages.channels.form.fillTemplate', defaultMessage: '填入模板' })}
    </Typography.Link>
  );

  const onTypeChange = (next: number) => {
    // `other` means something else for each type: keep it only for the stored type.
    form.setFieldValue('other', next === stored.type ? stored.other : '');
    if (((form.getFieldValue('models') as string[] | undefined) ?? []).length === 0) form.setFieldValue('models', related(next));
  };

  /** A request the contracts refuse (a limit no field rule covers): shown on its field, or as a toast. */
  const showIssues = (issues: SchemaIssue[]) => {
    const formNames: Record<string, keyof ChannelFormValues> = { group: 'groups' };
    const issue = issues[0]!;
    const name = String(issue.path[0] ?? '');
    const field = formNames[name] ?? (name in stored ? (name as keyof ChannelFormValues) : null);
    if (field) form.setFields([{ name: field, errors: [issueText(issue, intl)] }]);
    else void message.error(`${name}: ${issueText(issue, intl)}`);
  };

  const onFinish = async () => {
    const values = { ...stored, ...(form.getFieldsValue(true) as Partial<ChannelFormValues>) };
    const body = fieldsFromForm(values);
    const key = (values.key ?? '').trim();
    if (!editing) {
      // Several keys in one channel (picked at random or in turn), or one channel per key.
      const pooled = batch && values.multi_key_mode !== '' ? { multi_key_mode: values.multi_key_mode } : {};
      const checked = createChannelBodySchema.safeParse({ ...body, key, ...pooled });
      if (!checked.success) return showIssues(checked.error.issues);
      const created = await create({ ...body, key, ...pooled })
        .unwrap()
        .catch(() => null);
      if (!created) return;
      void message.success(
        created.ids.length > 1
          ? t({ id: 'pages.channels.form.created.batch', defaultMessage: '已批量创建 {count} 个渠道' }, { count: created.ids.length })
          : t({ id: 'pages.channels.form.created', defaultMessage: '渠道创建成功！' }),
      );
      onDone();
      return;
    }
    const multiKey = stored.multi_key_mode !== '';
    const changes = {
      id: channelId,
      ...changedFields(fieldsFromForm(stored), body),
      ...(key ? { key, ...(multiKey ? { key_mode: values.key_mode } : {}) } : {}),
      ...(multiKey && values.multi_key_mode !== stored.multi_key_mode && values.multi_key_mode !== '' ? { multi_key_mode: values.multi_key_mode } : {}),
    };
    if (Object.keys(changes).length === 1) {
      void message.warning(t({ id: 'pages.channels.form.unchanged', defaultMessage: '没有任何修改！' }));
      return;
    }
    const checked = updateChannelBodySchema.safeParse(changes);
    if (!checked.success) return showIssues(checked.error.issues);
    try {
      await update(changes).unwrap();
      void message.success(t({ id: 'pages.channels.form.updated', defaultMessage: '渠道更新成功！' }));
      onDone();
    } catch (error) {
      showFailure(error);
    }
  };

  return (
    <Form<ChannelFormValues>
      form={form}
      layout="vertical"
      initialValues={stored}
      onFinish={() => void onFinish()}
      onFinishFailed={() => setSubmitted(true)}
      validateTrigger={submitted ? 'onChange' : 'onSubmit'}
      autoComplete="off"
    >
      <Form.Item
        name="type"
        label={t({ id: 'pages.channels.form.type', defaultMessage: '类型' })}
        rules={[{ required: true, message: t({ id: 'pages.channels.form.type.required', defaultMessage: '请选择渠道类型' }) }]}
      >
        <Select options={typeOptions} showSearch={{ optionFilterProp: 'label' }} onChange={onTypeChange} />
      </Form.Item>
      <Form.Item
        name="name"
        label={t({ id: 'pages.channels.form.name', defaultMessage: '名称' })}
        rules={[
          { required: true, whitespace: true, message: t({ id: 'pages.channels.form.name.required', defaultMessage: '请输入渠道名称' }) },
          schemaRule(fields.name, intl),
        ]}
      >
        <Input placeholder={t({ id: 'pages.channels.form.name.placeholder', defaultMessage: '请为渠道命名' })} />
      </Form.Item>
      <TypeFields type={type} />
      <KeyField type={type} editing={editing} multiKey={stored.multi_key_mode !== ''} batch={batch} onBatchChange={setBatch} />
      {/* Root may read the stored key back, after a step-up. */}
      {channelId !== undefined && isRoot && <RevealKeyButton channelId={channelId} />}
      <Form.Item
        name="groups"
        label={t({ id: 'pages.channels.form.groups', defaultMessage: '分组' })}
        rules={[
          { required: true, type: 'array', min: 1, message: t({ id: 'pages.channels.form.groups.required', defaultMessage: '请选择可以使用该渠道的分组' }) },
        ]}
      >
        <Select
          mode="multiple"
          options={groupOptions}
          placeholder={t({ id: 'pages.channels.form.groups.placeholder', defaultMessage: '请选择可以使用该渠道的分组' })}
        />
      </Form.Item>
      <Form.Item
        name="models"
        label={t({ id: 'pages.channels.form.models', defaultMessage: '模型' })}
        rules={[{ required: true, type: 'array', min: 1, message: t({ id: 'pages.channels.form.models.required', defaultMessage: '请至少选择一个模型！' }) }]}
        extra={<ModelTools channelId={channelId} />}
      >
        <Select
          mode="multiple"
          allowClear
          options={modelOptions}
          showSearch={{ optionFilterProp: 'label' }}
          placeholder={t({ id: 'pages.channels.form.models.placeholder', defaultMessage: '请选择该渠道所支持的模型' })}
        />
      </Form.Item>
      <Form.Item
        name="model_mapping"
        label={t({ id: 'pages.channels.form.modelMapping', defaultMessage: '模型重定向' })}
        extra={fillTemplate('model_mapping', MODEL_MAPPING_EXAMPLE)}
        rules={[jsonRule(t({ id: 'pages.channels.form.modelMapping.invalid', defaultMessage: '模型映射必须是合法的 JSON 格式！' }))]}
      >
        <Input.TextArea
          autoSize={{ minRows: 2 }}
          placeholder={t(
            {
              id: 'pages.channels.form.modelMapping.placeholder',
              defaultMessage: '此项可选，用于修改请求体中的模型名称，为一个 JSON 字符串，键为请求中模型名称，值为要替换的模型名称，例如：{example}',
            },
            { example: JSON.stringify(MODEL_MAPPING_EXAMPLE) },
          )}
        />
      </Form.Item>
      <Form.Item
        name="test_model"
        label={t({ id: 'pages.channels.form.testModel', defaultMessage: '默认测试模型' })}
        rules={[schemaRule(fields.test_model, intl)]}
      >
        <Select
          allowClear
          showSearch
          options={(models ?? []).map((model) => ({ value: model, label: model }))}
          placeholder={t({ id: 'pages.channels.form.testModel.placeholder', defaultMessage: '不填则为模型列表第一个' })}
        />
      </Form.Item>
      <Form.Item
        name="status_code_mapping"
        label={t({ id: 'pages.channels.form.statusCodeMapping', defaultMessage: '状态码复写' })}
        extra={fillTemplate('status_code_mapping', STATUS_CODE_MAPPING_EXAMPLE)}
        rules={[jsonRule(t({ id: 'pages.channels.form.statusCodeMapping.invalid', defaultMessage: '状态码复写必须是合法的 JSON 格式！' }))]}
      >
        <Input.TextArea
          autoSize={{ minRows: 2 }}
          placeholder={t(
            {
              id: 'pages.channels.form.statusCodeMapping.placeholder',
              defaultMessage:
                '此项可选，用于复写返回的状态码（仅影响本地判断），比如将 claude 渠道的 400 错误复写为 500（用于重试），请勿滥用该功能，例如：{example}',
            },
            { example: JSON.stringify(STATUS_CODE_MAPPING_EXAMPLE) },
          )}
        />
      </Form.Item>
      <Form.Item
        name="param_override"
        label={t({ id: 'pages.channels.form.paramOverride', defaultMessage: '参数覆盖' })}
        extra={fillTemplate('param_override', PARAM_OVERRIDE_EXAMPLE)}
        rules={[jsonRule(t({ id: 'pages.channels.form.paramOverride.invalid', defaultMessage: '参数覆盖必须是合法的 JSON 格式！' }))]}
      >
        <Input.TextArea
          autoSize={{ minRows: 2 }}
          placeholder={t(
            { id: 'pages.channels.form.paramOverride.placeholder', defaultMessage: '此项可选，用于覆盖请求体中的参数，为一个 JSON 对象，例如：{example}' },
            { example: JSON.stringify(PARAM_OVERRIDE_EXAMPLE) },
          )}
        />
      </Form.Item>
      <Form.Item
        name="setting"
        label={t({ id: 'pages.channels.form.setting', defaultMessage: '渠道额外设置' })}
        extra={fillTemplate('setting', SETTING_EXAMPLE)}
        rules={[jsonRule(t({ id: 'pages.channels.form.setting.invalid', defaultMessage: '渠道额外设置必须是合法的 JSON 格式！' }))]}
      >
        <Input.TextArea
          autoSize={{ minRows: 2 }}
          placeholder={t(
            { id: 'pages.channels.form.setting.placeholder', defaultMessage: '此项可选，用于配置渠道特定设置，为一个 JSON 字符串，例如：{example}' },
            { example: JSON.stringify(SETTING_EXAMPLE) },
          )}
        />
      </Form.Item>
      <Form.Item name="tag" label={t({ id: 'pages.channels.form.tag', defaultMessage: '渠道标签' })} rules={[schemaRule(fields.tag, intl)]}>
        <Input placeholder={t({ id: 'pages.channels.form.tag.placeholder', defaultMessage: '渠道标签，可选' })} />
      </Form.Item>
      <Space size="large" wrap>
        <Form.Item
          name="priority"
          label={t({ id: 'pages.channels.form.priority', defaultMessage: '渠道优先级' })}
          rules={[schemaRule(fields.priority, intl, (value) => parseInteger(value as number | null))]}
        >
          <InputNumber<number> style={{ width: 160 }} />
        </Form.Item>
        <Form.Item
          name="weight"
          label={t({ id: 'pages.channels.form.weight', defaultMessage: '渠道权重' })}
          rules={[schemaRule(fields.weight, intl, (value) => parseInteger(value as number | null))]}
        >
          <InputNumber<number> style={{ width: 160 }} />
        </Form.Item>
      </Space>
      <Form.Item
        name="auto_ban"
        valuePropName="checked"
        label={t({ id: 'pages.channels.form.autoBan', defaultMessage: '自动禁用' })}
        extra={t({ id: 'pages.channels.form.autoBan.extra', defaultMessage: '仅当自动禁用开启时有效，关闭后不会自动禁用该渠道' })}
      >
        <Switch />
      </Form.Item>
      {/* Rule R2: the channel's own way to private networks, set by admins only, audit-logged by the server. */}
      {isAdmin && (
        <Form.Item
          name="allow_private_network"
          valuePropName="checked"
          label={t({ id: 'pages.channels.form.privateNetwork', defaultMessage: '允许访问内网' })}
          extra={
            allowPrivateNetwork ? (
              <Alert
                type="warning"
                showIcon
                style={{ marginTop: 8 }}
                title={t({
                  id: 'pages.channels.form.privateNetwork.warning',
                  defaultMessage:
                    '开启后，该渠道可以访问本机、内网和云元数据等内部地址（例如 127.0.0.1、10.0.0.0/8、169.254.169.254）。仅对你信任的内网上游（如自建的 Ollama、vLLM）开启；每次修改都会记入日志。',
                })}
              />
            ) : (
              t({ id: 'pages.channels.form.privateNetwork.extra', defaultMessage: '关闭时，该渠道只能访问公网地址' })
            )
          }
        >
          <Switch />
        </Form.Item>
      )}
      <Divider titlePlacement="start" plain>
        {t({ id: 'pages.channels.form.rateLimits', defaultMessage: '速率限制（达到时路由跳过该渠道）' })}
      </Divider>
      <RateLimitFields name="rate_limits" use={use} />
      <Space>
        <Button type="primary" htmlType="submit" loading={creating || updating}>
          {t({ id: 'pages.channels.form.submit', defaultMessage: '提交' })}
        </Button>
        <Button onClick={onCancel}>{t({ id: 'pages.channels.form.cancel', defaultMessage: '取消' })}</Button>
      </Space>
    </Form>
  );
}
