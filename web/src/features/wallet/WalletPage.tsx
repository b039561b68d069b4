import { useState } from 'react';
import { AlipayCircleOutlined, GiftOutlined, LinkOutlined, WechatOutlined } from '@ant-design/icons';
import { App, Button, Card, Col, Descriptions, Flex, Input, InputNumber, Modal, Row, Statistic, Typography } from 'antd';
import type { PaymentMethod } from '@aigw/contracts';
import { useText } from '../../app/use-text';
import { useFormatQuota, useStatus } from '../../app/hooks';
import { userUpdated } from '../../app/session';
import { useAppDispatch } from '../../app/store';
import type { ApiError } from '../../api/base-query';
import { useSelfQuery } from '../self/api';
import { submitPaymentForm, useRedeemCodeMutation, useTopupAmountMutation, useTopupPayMutation } from './api';

/** The two payment methods (docs/product.md section 8): zfb (Alipay) and wx (WeChat Pay). */
const paymentMethods = [
  { key: 'zfb', icon: <AlipayCircleOutlined />, id: 'pages.wallet.pay.zfb', label: '支付宝' },
  { key: 'wx', icon: <WechatOutlined />, id: 'pages.wallet.pay.wx', label: '微信' },
] as const;

interface PendingPayment {
  method: PaymentMethod;
  amount: number;
  payable: string;
}

/** /topup: balance, redeem a code, and online top-up through the configured payment gateway. */
export function WalletPage() {
  const dispatch = useAppDispatch();
  const { message } = App.useApp();
  const status = useStatus();
  const formatQuota = useFormatQuota();
  const { data: self, refetch } = useSelfQuery();
  const [redeem, { isLoading: redeeming }] = useRedeemCodeMutation();
  const [quoteAmount, { isLoading: quoting }] = useTopupAmountMutation();
  const [pay, { isLoading: paying }] = useTopupPayMutation();
  const [code, setCode] = useState('');
  const minimum = Math.max(1, status?.min_topup ?? 1);
  const [amountInput, setAmountInput] = useState<number | null>(minimum);
  // Below 1 counts as 1 (docs/product.md section 8); the configured minimum is checked when paying.
  const amount = Math.max(1, Math.trunc(amountInput ?? 1));
  const [pending, setPending] = useState<PendingPayment | null>(null);
  const t = useText();

  const redeemCode = async () => {
    const key = code.trim();
    if (!key) {
      void message.warning(t('pages.wallet.redeem.empty', '请输入兑换码！'));
      return;
    }
    const added = await redeem({ key })
      .unwrap()
      .catch(() => null);
    if (added === null) return;
    void message.success(t('pages.wallet.redeem.done', '兑换成功！已添加额度：{quota}', { quota: formatQuota(added) }));
    setCode('');
    const fresh = await refetch()
      .unwrap()
      .catch(() => null);
    if (fresh) dispatch(userUpdated({ quota: fresh.quota, used_quota: fresh.used_quota, request_count: fresh.request_count }));
  };

  const openTopUpLink = () => {
    if (!status?.top_up_link) {
      void message.error(t('pages.wallet.link.missing', '超级管理员未设置充值链接！'));
      return;
    }
    window.open(status.top_up_link, '_blank', 'noopener,noreferrer');
  };

  const startPayment = async (method: PaymentMethod) => {
    if (!status?.enable_online_topup) {
      void message.error(t('pages.wallet.online.disabled', '管理员未开启在线充值！'));
      return;
    }
    if (amount < minimum) {
      void message.error(t('pages.wallet.amount.minimum', '充值数量不能小于 {minimum}', { minimum }));
      return;
    }
    const payable = await quoteAmount({ amount, top_up_code: code.trim() })
      .unwrap()
      .catch(() => null);
    if (payable !== null) setPending({ method, amount, payable: String(payable) });
  };

  const confirmPayment = async () => {
    if (!pending) return;
    try {
      const form = await pay({ amount: pending.amount, top_up_code: code.trim(), payment_method: pending.method }).unwrap();
      setPending(null);
      submitPaymentForm(form);
    } catch (error) {
      const failure = error as ApiError;
      void message.error(failure.status === 'BUSINESS' ? failure.message : t('pages.wallet.pay.failed', '请求失败'));
    }
  };

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={8}>
        <Card>
          <Statistic title={t('pages.wallet.balance', '当前余额')} value={formatQuota(self?.quota ?? 0)} />
          <Descriptions column={1} size="small" style={{ marginTop: 16 }}>
            <Descriptions.Item label={t('pages.wallet.used', '历史消耗')}>{formatQuota(self?.used_quota ?? 0)}</Descriptions.Item>
            <Descriptions.Item label={t('pages.wallet.requests', '请求次数')}>{self?.request_count ?? 0}</Descriptions.Item>
          </Descriptions>
        </Card>
      </Col>
      <Col xs={24} lg={16}>
        <Flex vertical gap={16}>
          <Card
            title={
              <span>
                <GiftOutlined /> {t('pages.wallet.redeem.title', '兑换码充值')}
              </span>
            }
          >
            <Flex gap={8} wrap>
              <Input
                style={{ flex: 1, minWidth: 240 }}
                value={code}
                placeholder={t('pages.wallet.redeem.placeholder', '请输入兑换码')}
                onChange={(event) => setCode(event.target.value)}
                onPressEnter={() => void redeemCode()}
              />
              <Button type="primary" loading={redeeming} onClick={() => void redeemCode()}>
                {t('pages.wallet.redeem.submit', '兑换')}
              </Button>
              <Button icon={<LinkOutlined />} onClick={openTopUpLink}>
                {t('pages.wallet.link', '获取兑换码')}
              </Button>
            </Flex>
          </Card>
          <Card title={t('pages.wallet.online.title', '在线充值')}>
            <Flex vertical gap={12}>
              <Typography.Text type="secondary">
                {t('pages.wallet.online.hint', '充值数量以美元计，最低 {minimum}；实付金额由服务器按当前价格计算。', { minimum })}
              </Typography.Text>
              <Flex gap={8} wrap align="center">
                <InputNumber
                  style={{ width: 200 }}
                  precision={0}
                  value={amountInput}
                  aria-label={t('pages.wallet.amount', '充值数量')}
                  onChange={(value) => setAmountInput(value === null ? null : Number(value))}
                  onBlur={() => setAmountInput(amount)}
                />
                {paymentMethods.map((method) => (
                  <Button key={method.key} icon={method.icon} loading={quoting || paying} onClick={() => void startPayment(method.key)}>
                    {t(method.id, method.label)}
                  </Button>
                ))}
              </Flex>
            </Flex>
          </Card>
        </Flex>
      </Col>
      <Modal
        open={pending !== null}
        title={t('pages.wallet.confirm.title', '充值确认')}
        okText={t('pages.wallet.confirm.ok', '确认支付')}
        confirmLoading={paying}
        onOk={() => void confirmPayment()}
        onCancel={() => setPending(null)}
      >
        {pending && (
          <Descriptions column={1}>
            <Descriptions.Item label={t('pages.wallet.confirm.quantity', '充值数量')}>{pending.amount}</Descriptions.Item>
            <Descriptions.Item label={t('pages.wallet.confirm.payable', '实付金额')}>{pending.payable}</Descriptions.Item>
            <Descriptions.Item label={t('pages.wallet.confirm.method', '支付方式')}>
              {t(paymentMethods.find((method) => method.key === pending.method)!.id, paymentMethods.find((method) => method.key === pending.method)!.label)}
            </Descriptions.Item>
          </Descriptions>
        )}
      </Modal>
    </Row>
  );
}

export default WalletPage;
