import { useMemo, useState } from 'react';
import { App, Button, Form, Input, Space, Tooltip } from 'antd';
import { useIntl } from 'react-intl';
import { readJson, storageKeys } from '../../lib/storage';
import { useFetchUpstreamModelsMutation, useKnownModelsQuery, useModelsByTypeQuery } from './api';
import { relatedModels } from './channel-types';
import { parseCustomModels, type ChannelFormValues } from './form-values';

/** Models the editor offers: every known one plus those already chosen. */
export function useModelOptions(chosen: string[] | undefined): Array<{ label: string; value: string }> {
  const { data: known } = useKnownModelsQuery();
  return useMemo(() => {
    const names = [...new Set([...(known ?? []).map((model) => model.id), ...(chosen ?? [])])];
    return names.map((name) => ({ label: name, value: name }));
  }, [chosen, known]);
}

/** The related models of a type, from the server's lists (the browser's copy until they arrive). */
export function useRelatedModels(): (type: number) => string[] {
  const { data: known } = useKnownModelsQuery();
  const { data: byType } = useModelsByTypeQuery();
  return (type: number) => relatedModels(type, byType ?? readJson<Record<string, string[]>>(storageKeys.models), known);
}

/**
 * Under the model select: fill related models, fill all, fetch from the upstream (by the stored
 * channel when editing, by the typed key when creating), clear, and add custom models.
 */
export function ModelTools({ channelId }: { channelId?: number }) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const { message } = App.useApp();
  const form = Form.useFormInstance<ChannelFormValues>();
  const { data: known } = useKnownModelsQuery();
  const related = useRelatedModels();
  const [fetchUpstream, { isLoading: fetching }] = useFetchUpstreamModelsMutation();
  const [custom, setCustom] = useState('');

  const current = (): string[] => (form.getFieldValue('models') as string[] | undefined) ?? [];
  const setModels = (models: string[]) => {
    form.setFieldValue('models', models);
    if (form.getFieldError('models').length > 0) void form.validateFields(['models']).catch(() => undefined);
  };

  const fromUpstream = async () => {
    let request: Parameters<typeof fetchUpstream>[0];
    if (channelId !== undefined) {
      request = { id: channelId };
    } else {
      const values = form.getFieldsValue(true) as ChannelFormValues;
      const key = (values.key ?? '').trim();
      if (!key) {
        void message.error(t({ id: 'pages.channels.form.models.fetch.needKey', defaultMessage: '请先填写密钥' }));
        return;
      }
      request = {
        type: values.type,
        base_url: (values.base_url ?? '').trim().replace(/\/+$/, ''),
        key,
        allow_private_network: values.allow_private_network ?? false,
      };
    }
    try {
      const fetched = await fetchUpstream(request).unwrap();
      setModels([...new Set([...current(), ...fetched])]);
      void message.success(t({ id: 'pages.channels.form.models.fetch.done', defaultMessage: '获取模型列表成功' }));
    } catch {
      void message.error(t({ id: 'pages.channels.form.models.fetch.failed', defaultMessage: '获取模型列表失败' }));
    }
  };

  const addCustom = () => {
    const added = parseCustomModels(custom);
    if (added.length === 0) return;
    const models = current();
    if (added.some((model) => models.includes(model))) {
      void message.error(t({ id: 'pages.channels.form.models.exists', defaultMessage: '某些模型已存在！' }));
      return;
    }
    setModels([...models, ...added]);
    setCustom('');
  };

  return (
    <div style={{ marginTop: 8 }}>
      <Space wrap size={[8, 8]}>
        <Button size="small" type="primary" onClick={() => setModels(related(form.getFieldValue('type') as number))}>
          {t({ id: 'pages.channels.form.models.fillRelated', defaultMessage: '填入相关模型' })}
        </Button>
        <Button size="small" onClick={() => setModels((known ?? []).map((model) => model.id))}>
          {t({ id: 'pages.channels.form.models.fillAll', defaultMessage: '填入所有模型' })}
        </Button>
        <Tooltip title={t({ id: 'pages.channels.form.models.fetch.tip', defaultMessage: '从上游获取该渠道可用的模型列表，并入已选模型' })}>
          <Button size="small" loading={fetching} onClick={() => void fromUpstream()}>
            {t({ id: 'pages.channels.form.models.fetch', defaultMessage: '获取模型列表' })}
          </Button>
        </Tooltip>
        <Button size="small" danger onClick={() => setModels([])}>
          {t({ id: 'pages.channels.form.models.clear', defaultMessage: '清除所有模型' })}
        </Button>
      </Space>
      <Space.Compact style={{ width: '100%', marginTop: 8 }}>
        <Input
          value={custom}
          onChange={(event) => setCustom(event.target.value)}
          onPressEnter={(event) => {
            event.preventDefault();
            addCustom();
          }}
          placeholder={t({ id: 'pages.channels.form.models.custom.placeholder', defaultMessage: '输入自定义模型名称，多个用英文逗号分隔' })}
        />
        <Button type="primary" onClick={addCustom}>
          {t({ id: 'pages.channels.form.models.custom.add', defaultMessage: '填入' })}
        </Button>
      </Space.Compact>
    </div>
  );
}
