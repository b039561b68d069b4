import { Form, Input, Modal } from 'antd';
import { addRow, checkNewName, hasFixedPrice, isNotNumber, type PricingRow } from './pricing-rows';
import { useText } from '../../../app/use-text';

interface AddModelDialogProps {
  open: boolean;
  rows: readonly PricingRow[];
  onAdd: (rows: PricingRow[]) => void;
  onCancel: () => void;
}

type Draft = Partial<PricingRow>;

/** Adds a model row: a new, non-empty name, and numbers (a fixed price leaves no ratios). */
export function AddModelDialog({ open, rows, onAdd, onCancel }: AddModelDialogProps) {
  const t = useText();
  const [form] = Form.useForm<Draft>();
  const price = Form.useWatch('price', form) ?? '';
  const fixedPrice = hasFixedPrice({ price });
  const notNumber = t('pages.settings.operation.pricing.notNumber', '请输入数字');

  const numberRule = {
    validator: async (_: unknown, value?: string) => {
      if (value && isNotNumber(value)) throw new Error(notNumber);
    },
  };
  const nameRule = {
    validator: async (_: unknown, value?: string) => {
      const problem = checkNewName(rows, value ?? '');
      if (problem === 'required') throw new Error(t('pages.settings.operation.pricing.nameRequired', '请输入模型名称'));
      if (problem === 'duplicate') throw new Error(t('pages.settings.operation.pricing.duplicate', '模型名称已存在'));
    },
  };

  const submit = async () => {
    const draft = await form.validateFields().catch(() => null);
    if (!draft) return;
    const result = addRow(rows, { name: draft.name ?? '', price: draft.price ?? '', ratio: draft.ratio ?? '', completionRatio: draft.completionRatio ?? '' });
    if (result.ok) onAdd(result.rows);
  };

  return (
    <Modal
      open={open}
      title={t('pages.settings.operation.pricing.add', '添加模型')}
      okText={t('pages.settings.operation.pricing.add', '添加模型')}
      onOk={() => void submit()}
      onCancel={onCancel}
      afterClose={() => form.resetFields()}
      // Mounted while closed, so the form instance stays connected for useWatch.
      forceRender
    >
      <Form<Draft>
        form={form}
        layout="vertical"
        // A fixed price clears the ratios, as in the table.
        onValuesChange={(changed: Draft) => {
          if (changed.price !== undefined && hasFixedPrice({ price: changed.price })) form.setFieldsValue({ ratio: '', completionRatio: '' });
        }}
      >
        <Form.Item name="name" label={t('pages.settings.operation.pricing.name', '模型名称')} rules={[nameRule]} required>
          <Input autoComplete="off" />
        </Form.Item>
        <Form.Item
          name="price"
          label={t('pages.settings.operation.pricing.price', '固定价格')}
          rules={[numberRule]}
          extra={t('pages.settings.operation.pricing.price.help', '美元/次；设置后按次计费，不使用倍率')}
        >
          <Input inputMode="decimal" />
        </Form.Item>
        <Form.Item name="ratio" label={t('pages.settings.operation.pricing.ratio', '模型倍率')} rules={fixedPrice ? [] : [numberRule]}>
          <Input inputMode="decimal" disabled={fixedPrice} />
        </Form.Item>
        <Form.Item name="completionRatio" label={t('pages.settings.operation.pricing.completionRatio', '补全倍率')} rules={fixedPrice ? [] : [numberRule]}>
          <Input inputMode="decimal" disabled={fixedPrice} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
