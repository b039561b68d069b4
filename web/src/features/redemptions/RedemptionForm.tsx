import { App, Button, Form, Input, Space, Typography } from 'antd';
import { MAX_QUOTA, REDEMPTION_BATCH_MAX, REDEMPTION_NAME_MAX, type RedemptionView } from '@aigw/contracts';
import { useQuotaDisplay } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { formatQuota } from '../../lib/quota';
import { parseInteger } from '../tokens/token-rules';
import { useCreateRedemptionsMutation, useUpdateRedemptionMutation } from './api';
import { downloadText } from './download';

/** What a new batch starts with (docs/product.md section 8). */
export const DEFAULT_REDEMPTION_QUOTA = 100_000;
export const DEFAULT_REDEMPTION_COUNT = 1;

interface RedemptionFormValues {
  name: string;
  /** Text, so that a typed value can be refused with its message. */
  quota: string;
  count: string;
}

interface RedemptionFormProps {
  /** The code to update; none to create codes. */
  redemption?: RedemptionView;
  onDone: () => void;
}

/** The redemption form (docs/product.md section 8). */
export function RedemptionForm({ redemption, onDone }: RedemptionFormProps) {
  const { message, modal } = App.useApp();
  const display = useQuotaDisplay();
  const [form] = Form.useForm<RedemptionFormValues>();
  const [createRedemptions, { isLoading: creating }] = useCreateRedemptionsMutation();
  const [updateRedemption, { isLoading: updating }] = useUpdateRedemptionMutation();
  const quotaText = Form.useWatch('quota', form);
  const t = useText();
  // Money, whatever the display setting: the server names a blank code the same way ($0.20).
  const asMoney = (quota: number) => formatQuota(quota, { ...display, displayInCurrency: true });

  const quotaProblem = (value: string | undefined): string | null => {
    const quota = parseInteger(value);
    if (quota === null || quota < 0) return t('pages.redemptions.form.quota.integer', '额度必须是非负整数');
    if (quota > MAX_QUOTA) return t('pages.redemptions.form.quota.tooLarge', '额度过大');
    return null;
  };
  const countProblem = (value: string | undefined): string | null => {
    const count = parseInteger(value);
    if (count === null || count < 1) return t('pages.redemptions.form.count.positive', '数量必须是大于 0 的整数');
    if (count > REDEMPTION_BATCH_MAX) return t('pages.redemptions.form.count.max', '一次最多生成 {max} 个兑换码', { max: REDEMPTION_BATCH_MAX });
    return null;
  };
  const ruleOf = (problem: (value: string | undefined) => string | null) => ({
    validator: async (_: unknown, value: string | undefined) => {
      const text = problem(value);
      if (text) throw new Error(text);
    },
  });

  const offerDownload = (name: string, codes: string[]) => {
    const text = codes.join('\n');
    modal.confirm({
      title: t('pages.redemptions.created.title', '兑换码创建成功，是否下载兑换码？'),
      content: (
        <Space orientation="vertical" style={{ width: '100%' }}>
          <Typography.Text type="secondary">{t('pages.redemptions.created.hint', '兑换码将以文本文件的形式下载，文件名为兑换码的名称。')}</Typography.Text>
          <Input.TextArea aria-label={t('pages.redemptions.created.codes', '生成的兑换码')} value={text} readOnly autoSize={{ minRows: 2, maxRows: 10 }} />
        </Space>
      ),
      okText: t('pages.redemptions.created.download', '下载'),
      cancelText: t('pages.redemptions.created.close', '关闭'),
      onOk: () => downloadText(text, `${name}.txt`),
    });
  };

  const onFinish = async (values: RedemptionFormValues) => {
    const quota = parseInteger(values.quota)!;
    const name = values.name.trim() || asMoney(quota);
    if (redemption) {
      const done = await updateRedemption({ id: redemption.id, name, quota })
        .unwrap()
        .then(
          () => true,
          () => false,
        );
      if (!done) return;
      void message.success(t('pages.redemptions.form.updated', '兑换码更新成功！'));
      onDone();
      return;
    }
    const codes = await createRedemptions({ name, quota, count: parseInteger(values.count)! })
      .unwrap()
      .catch(() => null);
    if (!codes) return;
    void message.success(t('pages.redemptions.form.created', '兑换码创建成功！'));
    onDone();
    offerDownload(name, codes);
  };

  const quota = parseInteger(quotaText);
  return (
    <Form<RedemptionFormValues>
      form={form}
      layout="vertical"
      onFinish={(values) => void onFinish(values)}
      initialValues={{
        name: redemption?.name ?? '',
        quota: String(redemption?.quota ?? DEFAULT_REDEMPTION_QUOTA),
        count: String(DEFAULT_REDEMPTION_COUNT),
      }}
    >
      <Form.Item
        name="name"
        label={t('pages.redemptions.form.name', '名称')}
        extra={t('pages.redemptions.form.name.hint', '留空则以额度金额命名')}
        rules={[{ max: REDEMPTION_NAME_MAX, message: t('pages.redemptions.form.name.length', '名称长度应为 1 到 {max} 个字符', { max: REDEMPTION_NAME_MAX }) }]}
      >
        <Input placeholder={t('pages.redemptions.form.name.placeholder', '请输入名称')} />
      </Form.Item>
      <Form.Item
        name="quota"
        label={t('pages.redemptions.form.quota', '额度')}
        rules={[ruleOf(quotaProblem)]}
        extra={quota !== null && quota >= 0 ? t('pages.redemptions.form.quota.equivalent', '等价金额：{amount}', { amount: asMoney(quota) }) : undefined}
      >
        <Input placeholder={t('pages.redemptions.form.quota.placeholder', '请输入单个兑换码中包含的额度')} />
      </Form.Item>
      {!redemption && (
        <Form.Item name="count" label={t('pages.redemptions.form.count', '生成数量')} rules={[ruleOf(countProblem)]}>
          <Input placeholder={t('pages.redemptions.form.count.placeholder', '请输入生成数量')} />
        </Form.Item>
      )}
      <Space>
        <Button type="primary" htmlType="submit" loading={creating || updating}>
          {t('pages.redemptions.form.submit', '提交')}
        </Button>
        <Button onClick={onDone}>{t('pages.redemptions.form.cancel', '取消')}</Button>
      </Space>
    </Form>
  );
}
