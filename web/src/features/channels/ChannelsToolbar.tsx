import { useState } from 'react';
import { App, Button, Form, Input, Modal, Space, Switch } from 'antd';
import { useIntl } from 'react-intl';
import {
  useDeleteChannelsMutation,
  useDeleteDisabledChannelsMutation,
  useFixChannelsMutation,
  useSetTagMutation,
  useTestAllChannelsMutation,
  useUpdateAllBalancesMutation,
} from './api';

export interface ToolbarState {
  idSort: boolean;
  tagMode: boolean;
  batchMode: boolean;
}

interface ChannelsToolbarProps extends ToolbarState {
  selected: number[];
  onAdd(): void;
  onRefresh(): void;
  onIdSortChange(value: boolean): void;
  onTagModeChange(value: boolean): void;
  onBatchModeChange(value: boolean): void;
  /** After a batch operation: the selection is gone. */
  onBatchDone(): void;
}

/** The actions above the table (docs/product.md section 6). */
export function ChannelsToolbar(props: ChannelsToolbarProps) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const { message, modal } = App.useApp();
  const [testAll, { isLoading: testing }] = useTestAllChannelsMutation();
  const [updateAll, { isLoading: updating }] = useUpdateAllBalancesMutation();
  const [deleteDisabled] = useDeleteDisabledChannelsMutation();
  const [deleteSelected] = useDeleteChannelsMutation();
  const [fix] = useFixChannelsMutation();
  const [tagging, setTagging] = useState(false);

  const onTestAll = async () => {
    if (
      await testAll()
        .unwrap()
        .then(
          () => true,
          () => false,
        )
    ) {
      void message.info(t({ id: 'pages.channels.testAll.started', defaultMessage: '已成功开始测试所有通道，请刷新页面查看结果。' }));
    }
  };

  const onUpdateAll = async () => {
    if (
      await updateAll()
        .unwrap()
        .then(
          () => true,
          () => false,
        )
    ) {
      void message.info(t({ id: 'pages.channels.balanceAll.started', defaultMessage: '已开始更新所有已启用通道余额，请稍后刷新页面查看结果。' }));
    }
  };

  const onDeleteDisabled = () =>
    modal.confirm({
      title: t({ id: 'pages.channels.deleteDisabled.confirm', defaultMessage: '确定是否要删除禁用通道？' }),
      content: t({ id: 'pages.channels.delete.irreversible', defaultMessage: '此修改将不可逆' }),
      okButtonProps: { danger: true },
      onOk: async () => {
        const count = await deleteDisabled()
          .unwrap()
          .catch(() => null);
        if (count !== null)
          void message.success(t({ id: 'pages.channels.deleteDisabled.done', defaultMessage: '已删除所有禁用渠道，共计 {count} 个' }, { count }));
      },
    });

  const onDeleteSelected = () => {
    if (props.selected.length === 0) {
      void message.error(t({ id: 'pages.channels.batch.noSelection', defaultMessage: '请先选择要删除的通道！' }));
      return;
    }
    modal.confirm({
      title: t({ id: 'pages.channels.batch.delete.confirm', defaultMessage: '确定是否要删除所选通道？' }),
      content: t({ id: 'pages.channels.delete.irreversible', defaultMessage: '此修改将不可逆' }),
      okButtonProps: { danger: true },
      onOk: async () => {
        const count = await deleteSelected(props.selected)
          .unwrap()
          .catch(() => null);
        if (count === null) return;
        void message.success(t({ id: 'pages.channels.batch.delete.done', defaultMessage: '已删除 {count} 个通道！' }, { count }));
        props.onBatchDone();
      },
    });
  };

  const onFix = () =>
    modal.confirm({
      title: t({ id: 'pages.channels.fix.confirm', defaultMessage: '确定是否要修复数据库一致性？' }),
      content: t({ id: 'pages.channels.fix.content', defaultMessage: '将按渠道重建路由能力表，请仅在数据库出现问题时使用' }),
      onOk: async () => {
        const count = await fix()
          .unwrap()
          .catch(() => null);
        if (count !== null)
          void message.success(t({ id: 'pages.channels.fix.done', defaultMessage: '数据库一致性修复完成，共处理 {count} 个渠道' }, { count }));
      },
    });

  const onSetTag = () => {
    if (props.selected.length === 0) {
      void message.error(t({ id: 'pages.channels.batchTag.noSelection', defaultMessage: '请先选择要设置标签的渠道！' }));
      return;
    }
    setTagging(true);
  };

  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Space wrap>
        <Button type="primary" onClick={props.onAdd}>
          {t({ id: 'pages.channels.add', defaultMessage: '添加渠道' })}
        </Button>
        <Button loading={testing} onClick={() => void onTestAll()}>
          {t({ id: 'pages.channels.testAll', defaultMessage: '测试所有通道' })}
        </Button>
        <Button loading={updating} onClick={() => void onUpdateAll()}>
          {t({ id: 'pages.channels.balanceAll', defaultMessage: '更新所有已启用通道余额' })}
        </Button>
        <Button danger onClick={() => void onDeleteDisabled()}>
          {t({ id: 'pages.channels.deleteDisabled', defaultMessage: '删除禁用通道' })}
        </Button>
        <Button onClick={props.onRefresh}>{t({ id: 'pages.channels.refresh', defaultMessage: '刷新' })}</Button>
        <Button onClick={() => void onFix()}>{t({ id: 'pages.channels.fix', defaultMessage: '修复数据库一致性' })}</Button>
      </Space>
      <Space wrap size="large">
        <Labelled label={t({ id: 'pages.channels.idSort', defaultMessage: '使用ID排序' })}>
          <Switch checked={props.idSort} onChange={props.onIdSortChange} aria-label={t({ id: 'pages.channels.idSort', defaultMessage: '使用ID排序' })} />
        </Labelled>
        <Labelled label={t({ id: 'pages.channels.batchMode', defaultMessage: '开启批量操作' })}>
          <Switch
            checked={props.batchMode}
            onChange={props.onBatchModeChange}
            aria-label={t({ id: 'pages.channels.batchMode', defaultMessage: '开启批量操作' })}
          />
        </Labelled>
        <Labelled label={t({ id: 'pages.channels.tagMode', defaultMessage: '标签聚合模式' })}>
          <Switch checked={props.tagMode} onChange={props.onTagModeChange} aria-label={t({ id: 'pages.channels.tagMode', defaultMessage: '标签聚合模式' })} />
        </Labelled>
        {props.batchMode && (
          <Space wrap>
            <Button danger onClick={onDeleteSelected}>
              {t({ id: 'pages.channels.batch.delete', defaultMessage: '删除所选通道' })}
            </Button>
            <Button onClick={onSetTag}>{t({ id: 'pages.channels.batchTag', defaultMessage: '批量设置标签' })}</Button>
          </Space>
        )}
      </Space>
      {tagging && (
        <BatchTagModal
          ids={props.selected}
          onClose={(done) => {
            setTagging(false);
            if (done) props.onBatchDone();
          }}
        />
      )}
    </Space>
  );
}

function Labelled({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Space size={6}>
      <span>{label}</span>
      {children}
    </Space>
  );
}

/** Sets one tag on the selected channels (POST /api/channel/batch/tag). */
function BatchTagModal({ ids, onClose }: { ids: number[]; onClose(done: boolean): void }) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const { message } = App.useApp();
  const [form] = Form.useForm<{ tag: string }>();
  const [setTag, { isLoading }] = useSetTagMutation();

  const onOk = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    const count = await setTag({ ids, tag: values.tag.trim() })
      .unwrap()
      .catch(() => null);
    if (count === null) return;
    void message.success(t({ id: 'pages.channels.batchTag.done', defaultMessage: '已为 {count} 个渠道设置标签' }, { count }));
    onClose(true);
  };

  return (
    <Modal
      open
      title={t({ id: 'pages.channels.batchTag', defaultMessage: '批量设置标签' })}
      onOk={() => void onOk()}
      onCancel={() => onClose(false)}
      confirmLoading={isLoading}
      okText={t({ id: 'pages.channels.tagEdit.save', defaultMessage: '保存' })}
      cancelText={t({ id: 'pages.channels.form.cancel', defaultMessage: '取消' })}
    >
      <p>{t({ id: 'pages.channels.batchTag.selected', defaultMessage: '已选择 {count} 个渠道' }, { count: ids.length })}</p>
      <Form form={form} layout="vertical" initialValues={{ tag: '' }}>
        <Form.Item
          name="tag"
          label={t({ id: 'pages.channels.form.tag', defaultMessage: '渠道标签' })}
          rules={[{ required: true, whitespace: true, message: t({ id: 'pages.channels.batchTag.empty', defaultMessage: '标签不能为空！' }) }]}
        >
          <Input placeholder={t({ id: 'pages.channels.tagEdit.newTag.placeholder', defaultMessage: '请输入新标签' })} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
