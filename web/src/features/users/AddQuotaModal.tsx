import { useState } from 'react';
import { InputNumber, Modal, Typography } from 'antd';
import { useIntl } from 'react-intl';

interface Props {
  open: boolean;
  /** The quota shown in the edit form. */
  current: number;
  /** The entered amount (a negative amount lowers the quota); the form adds it to what it shows. */
  onAdd: (amount: number) => void;
  onClose: () => void;
}

/** 'Add quota': adds a whole number, negative allowed, to the shown quota, previewing the result. */
export function AddQuotaModal({ open, current, onAdd, onClose }: Props) {
  const intl = useIntl();
  const [amount, setAmount] = useState<number | null>(null);
  const added = Math.trunc(amount ?? 0);

  const close = () => {
    setAmount(null);
    onClose();
  };

  return (
    <Modal
      open={open}
      destroyOnHidden
      title={intl.formatMessage({ id: 'pages.users.addQuota.title', defaultMessage: '添加额度' })}
      okText={intl.formatMessage({ id: 'common.confirm', defaultMessage: '确定' })}
      cancelText={intl.formatMessage({ id: 'common.cancel', defaultMessage: '取消' })}
      onOk={() => {
        onAdd(added);
        close();
      }}
      onCancel={close}
    >
      <Typography.Paragraph>
        {intl.formatMessage(
          { id: 'pages.users.addQuota.preview', defaultMessage: '新额度：{current} + {added} = {result}' },
          // Plain digits, as the quota field shows them.
          { current: String(current), added: String(added), result: String(current + added) },
        )}
      </Typography.Paragraph>
      <InputNumber<number>
        autoFocus
        style={{ width: '100%' }}
        precision={0}
        value={amount}
        onChange={setAmount}
        aria-label={intl.formatMessage({ id: 'pages.users.addQuota.amount', defaultMessage: '需要添加的额度（支持负数）' })}
        placeholder={intl.formatMessage({ id: 'pages.users.addQuota.amount', defaultMessage: '需要添加的额度（支持负数）' })}
      />
    </Modal>
  );
}
