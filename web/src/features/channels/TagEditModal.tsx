import { useMemo } from 'react';
import { App, Form, Input, Modal, Select } from 'antd';
import { useIntl } from 'react-intl';
import type { TagEditBody } from '@aigw/contracts';
import { useGroupNamesQuery } from '../groups/api';
import { useEditTagMutation } from './api';
import { isJsonObjectOrBlank } from './form-values';
import { useModelOptions } from './ModelTools';

interface TagForm {
  new_tag: string;
  model_mapping: string;
  groups: string[];
  models: string[];
  priority: string;
  weight: string;
}

/** Tag operations (docs/product.md section 6): empty fields mean no change; only the new tag may be emptied, which dissolves the tag. */
export function tagEditBody(tag: string, values: TagForm): TagEditBody | null {
  const body: TagEditBody = { tag };
  const newTag = values.new_tag.trim();
  if (newTag !== tag) body.new_tag = newTag;
  if (values.model_mapping.trim()) body.model_mapping = values.model_mapping.trim();
  if (values.groups.length > 0) body.groups = values.groups.join(',');
  if (values.models.length > 0) body.models = values.models.join(',');
  if (values.priority.trim()) body.priority = Number(values.priority.trim());
  if (values.weight.trim()) body.weight = Number(values.weight.trim());
  return Object.keys(body).length > 1 ? body : null;
}

/** Edits every channel of a tag at once (PUT /api/channel/tag). */
export function TagEditModal({ tag, onClose }: { tag: string; onClose(): void }) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const { message, modal } = App.useApp();
  const [form] = Form.useForm<TagForm>();
  const models = Form.useWatch('models', form);
  const modelOptions = useModelOptions(models);
  const { data: groupNames } = useGroupNamesQuery();
  const groupOptions = useMemo(() => (groupNames ?? []).map((group) => ({ value: group, label: group })), [groupNames]);
  const [editTag, { isLoading }] = useEditTagMutation();
  const unchanged = t({ id: 'pages.channels.tagEdit.unchanged', defaultMessage: '留空则不更改' });

  const submit = async (body: TagEditBody) => {
    const done = await editTag(body)
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!done) return;
    void message.success(t({ id: 'pages.channels.tagEdit.done', defaultMessage: '标签更新成功！' }));
    onClose();
  };

  const onOk = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const body = tagEditBody(tag, { ...values, groups: values.groups ?? [], models: values.models ?? [] });
    if (!body) {
      void message.warning(t({ id: 'pages.channels.tagEdit.nothing', defaultMessage: '没有任何修改！' }));
      return;
    }
    if (body.new_tag === '') {
      modal.confirm({
        title: t({ id: 'pages.channels.tagEdit.dissolve.title', defaultMessage: '解散标签' }),
        content: t({ id: 'pages.channels.tagEdit.dissolve.content', defaultMessage: '确定要解散标签吗？标签下的渠道会保留，只是不再属于该标签。' }),
        onOk: () => submit(body),
      });
      return;
    }
    await submit(body);
  };

  return (
    <Modal
      open
      title={t({ id: 'pages.channels.tagEdit.title', defaultMessage: '编辑标签：{tag}' }, { tag })}
      onOk={() => void onOk()}
      onCancel={onClose}
      confirmLoading={isLoading}
      okText={t({ id: 'pages.channels.tagEdit.save', defaultMessage: '保存' })}
      cancelText={t({ id: 'pages.channels.form.cancel', defaultMessage: '取消' })}
      destroyOnHidden
    >
      <Form<TagForm> form={form} layout="vertical" initialValues={{ new_tag: tag, model_mapping: '', groups: [], models: [], priority: '', weight: '' }}>
        <Form.Item name="new_tag" label={t({ id: 'pages.channels.tagEdit.newTag', defaultMessage: '新标签（留空则解散标签，不会删除标签下的渠道）' })}>
          <Input placeholder={t({ id: 'pages.channels.tagEdit.newTag.placeholder', defaultMessage: '请输入新标签' })} />
        </Form.Item>
        <Form.Item
          name="model_mapping"
          label={t({ id: 'pages.channels.form.modelMapping', defaultMessage: '模型重定向' })}
          rules={[
            {
              validator: async (_rule, value?: string) => {
                if (!isJsonObjectOrBlank(value))
                  throw new Error(t({ id: 'pages.channels.form.modelMapping.invalid', defaultMessage: '模型映射必须是合法的 JSON 格式！' }));
              },
            },
          ]}
        >
          <Input.TextArea autoSize={{ minRows: 2 }} placeholder={unchanged} />
        </Form.Item>
        <Form.Item name="groups" label={t({ id: 'pages.channels.form.groups', defaultMessage: '分组' })}>
          <Select mode="multiple" allowClear options={groupOptions} placeholder={unchanged} />
        </Form.Item>
        <Form.Item name="models" label={t({ id: 'pages.channels.form.models', defaultMessage: '模型' })}>
          <Select mode="multiple" allowClear options={modelOptions} showSearch={{ optionFilterProp: 'label' }} placeholder={unchanged} />
        </Form.Item>
        <Form.Item
          name="priority"
          label={t({ id: 'pages.channels.column.priority', defaultMessage: '优先级' })}
          rules={[
            {
              validator: async (_rule, value?: string) => {
                if (value?.trim() && !/^-?\d+$/.test(value.trim()))
                  throw new Error(t({ id: 'pages.channels.tagEdit.priority.invalid', defaultMessage: '优先级必须是整数！' }));
              },
            },
          ]}
        >
          <Input placeholder={unchanged} />
        </Form.Item>
        <Form.Item
          name="weight"
          label={t({ id: 'pages.channels.column.weight', defaultMessage: '权重' })}
          rules={[
            {
              validator: async (_rule, value?: string) => {
                if (value?.trim() && !/^\d+$/.test(value.trim()))
                  throw new Error(t({ id: 'pages.channels.tagEdit.weight.invalid', defaultMessage: '权重必须是非负整数！' }));
              },
            },
          ]}
        >
          <Input placeholder={unchanged} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
