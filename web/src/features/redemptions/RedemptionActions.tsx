import { App, Button, Popconfirm, Popover, Space, Tooltip, Typography } from 'antd';
import { RedemptionStatus, type RedemptionView } from '@aigw/contracts';
import { useText } from '../../app/use-text';
import { copyText } from '../../lib/clipboard';
import { useDeleteRedemptionMutation, useSetRedemptionStatusMutation } from './api';
import { confirmAction } from '../../components/confirm-action';

interface RedemptionActionsProps {
  redemption: RedemptionView;
  onEdit: (id: number) => void;
}

/** A code's actions: view, copy, delete, enable/disable (not once used), edit (only while unused). */
export function RedemptionActions({ redemption, onEdit }: RedemptionActionsProps) {
  const { message } = App.useApp();
  const [deleteRedemption] = useDeleteRedemptionMutation();
  const [setStatus, { isLoading: switching }] = useSetRedemptionStatusMutation();
  const t = useText();
  const used = redemption.status === RedemptionStatus.Used;
  const unused = redemption.status === RedemptionStatus.Unused;

  const copy = async () => {
    if (await copyText(redemption.key)) void message.success(t('pages.redemptions.copied', '已复制到剪贴板！'));
  };

  const remove = async () => {
    const done = await deleteRedemption(redemption.id)
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (done) void message.success(t('pages.redemptions.delete.done', '兑换码已删除！'));
  };

  const toggle = () => {
    void setStatus({ id: redemption.id, status: unused ? RedemptionStatus.Disabled : RedemptionStatus.Unused })
      .unwrap()
      .catch(() => null);
  };

  return (
    <Space size={4} wrap>
      <Popover trigger="click" content={<Typography.Text code>{redemption.key}</Typography.Text>}>
        <Button size="small">{t('pages.redemptions.action.view', '查看')}</Button>
      </Popover>
      <Button size="small" type="primary" onClick={() => void copy()}>
        {t('pages.redemptions.action.copy', '复制')}
      </Button>
      <Popconfirm
        title={t('pages.redemptions.delete.confirm', '确定要删除兑换码 {name} 吗？', { name: redemption.name })}
        okText={t('pages.redemptions.action.delete', '删除')}
        okButtonProps={{ danger: true }}
        cancelText={t('common.cancel', '取消')}
        onConfirm={confirmAction(remove)}
      >
        <Button size="small" danger>
          {t('pages.redemptions.action.delete', '删除')}
        </Button>
      </Popconfirm>
      {/* A used code stays used: switching it back on would let it be redeemed twice. */}
      <Tooltip title={used ? t('pages.redemptions.usedLocked', '兑换码已使用，不能启用、禁用或编辑') : undefined}>
        <Button size="small" disabled={used} loading={switching} onClick={toggle}>
          {unused ? t('pages.redemptions.action.disable', '禁用') : t('pages.redemptions.action.enable', '启用')}
        </Button>
      </Tooltip>
      <Button size="small" disabled={!unused} onClick={() => onEdit(redemption.id)}>
        {t('pages.redemptions.action.edit', '编辑')}
      </Button>
    </Space>
  );
}
