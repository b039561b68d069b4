import { App, Form, Input, InputNumber, Modal } from 'antd';
import { useIntl } from 'react-intl';
import { useFormatQuota, useQuotaDisplay } from '../../../app/hooks';
import { useTransferAffQuotaMutation } from './api';

interface TransferForm {
  quota: number | null;
}

interface TransferDialogProps {
  open: boolean;
  /** Pending invite earnings (quota units). */
  available: number;
  onClose(): void;
}

/** Moves invite earnings into the balance: at least the quota-per-unit value (docs/product.md section 4). */
export function TransferDialog({ open, available, onClose }: TransferDialogProps) {
  const intl = useIntl();
  const { message } = App.useApp();
  const formatQuota = useFormatQuota();
  const { quotaPerUnit } = useQuotaDisplay();
  const [transfer, { isLoading }] = useTransferAffQuotaMutation();
  const [form] = Form.useForm<TransferForm>();
  const amount = Form.useWatch('quota', form);

  const minimum = intl.formatMessage(
    { id: 'pages.settings.personal.transfer.minimum', defaultMessage: '划转金额最低为 {amount}' },
    { amount: formatQuota(quotaPerUnit) },
  );

  const submit = async () => {
    const values = await form.validateFields().catch(() => null);
    if (!values || values.quota === null) return;
    // The server's message (the amount moved) is the outcome the user sees; failures are toasted by the base query.
    const answer = await transfer({ quota: values.quota })
      .unwrap()
      .catch(() => null);
    if (answer === null) return;
    void message.success(answer || intl.formatMessage({ id: 'pages.settings.personal.transfer.done', defaultMessage: '划转成功' }));
    onClose();
  };

  return (
    <Modal
      open={open}
      title={intl.formatMessage({ id: 'pages.settings.personal.transfer.title', defaultMessage: '划转邀请收益到余额' })}
      okText={intl.formatMessage({ id: 'pages.settings.personal.transfer.submit', defaultMessage: '划转' })}
      okButtonProps={{ loading: isLoading }}
      onOk={() => void submit()}
      onCancel={onClose}
      afterClose={() => form.resetFields()}
    >
      <Form<TransferForm> form={form} layout="vertical" requiredMark={false} initialValues={{ quota: quotaPerUnit }} onFinish={() => void submit()}>
        <Form.Item label={intl.formatMessage({ id: 'pages.settings.personal.transfer.available', defaultMessage: '可用额度' })}>
          <Input readOnly value={formatQuota(available)} />
        </Form.Item>
        <Form.Item
          name="quota"
          label={intl.formatMessage({ id: 'pages.settings.personal.transfer.amount', defaultMessage: '划转额度' })}
          // The typed quota as the user reads money, e.g. 500000 -> $1.00.
          extra={typeof amount === 'number' ? formatQuota(amount) : undefined}
          rules={[
            { required: true, message: minimum },
            { type: 'number', min: quotaPerUnit, message: minimum },
          ]}
        >
          <InputNumber<number> style={{ width: '100%' }} precision={0} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
