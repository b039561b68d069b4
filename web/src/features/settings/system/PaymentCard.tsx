import { Input, InputNumber } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { toFormValue } from '../option-values';
import { useGetOptionsQuery } from '../options-api';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/**
 * Payment (a gateway speaking the common online-payment protocol). The gateway calls back to
 * the server address, so saving needs it stored first (docs/product.md section 5).
 */
export function PaymentCard() {
  const t = useText();
  const { data: stored } = useGetOptionsQuery();

  const requireServerAddress = () =>
    String(toFormValue('ServerAddress', stored?.ServerAddress) ?? '').trim() === ''
      ? t('pages.settings.system.payment.serverAddressRequired', '请先填写服务器地址')
      : undefined;

  // Checked before the card's own check, so this card shows its own message for bad JSON.
  const topupRatioIsJson = async (_rule: unknown, value: unknown) => {
    try {
      JSON.parse(typeof value === 'string' ? value : '');
    } catch {
      throw new Error(t('pages.settings.system.payment.topupGroupRatio.invalid', '充值分组倍率不是合法的 JSON 字符串'));
    }
  };

  return (
    <OptionSection
      title={t('pages.settings.system.payment.title', '支付设置')}
      saveLabel={t('pages.settings.system.payment.save', '更新支付设置')}
      keys={['PayAddress', 'EpayId', 'EpayKey', 'Price', 'MinTopUp', 'CustomCallbackAddress', 'TopupGroupRatio']}
      beforeSave={requireServerAddress}
      help={t('pages.settings.system.payment.help', '当前仅支持易支付接口，默认使用上方服务器地址作为回调地址！')}
    >
      <FieldGrid>
        <OptionField
          name="PayAddress"
          label={t('pages.settings.system.payment.payAddress', '支付地址')}
          input={<Input placeholder={t('pages.settings.system.payment.payAddress.placeholder', '例如：https://yourdomain.com')} />}
        />
        <OptionField name="EpayId" label={t('pages.settings.system.payment.epayId', '易支付商户ID')} />
        <OptionField name="EpayKey" label={t('pages.settings.system.payment.epayKey', '易支付商户密钥')} />
        <OptionField
          name="CustomCallbackAddress"
          label={t('pages.settings.system.payment.callbackAddress', '回调地址')}
          extra={t('pages.settings.system.payment.callbackAddress.help', '不填写则使用服务器地址')}
          input={<Input placeholder={t('pages.settings.system.payment.callbackAddress.placeholder', '例如：https://yourdomain.com')} />}
        />
        <OptionField
          name="Price"
          label={t('pages.settings.system.payment.price', '充值价格（x元/美金）')}
          extra={t('pages.settings.system.payment.price.help', '充值 1 美元额度需要支付的金额')}
          input={<InputNumber min={0} style={{ width: '100%' }} />}
        />
        <OptionField
          name="MinTopUp"
          label={t('pages.settings.system.payment.minTopUp', '最低充值美元数量')}
          input={<InputNumber min={1} precision={0} style={{ width: '100%' }} />}
        />
      </FieldGrid>
      <OptionField
        name="TopupGroupRatio"
        label={t('pages.settings.system.payment.topupGroupRatio', '充值分组倍率')}
        extra={t('pages.settings.system.payment.topupGroupRatio.help', '为一个 JSON 文本，键为分组名称，值为充值价格的倍率')}
        rules={[{ validator: topupRatioIsJson }]}
        validateFirst
      />
    </OptionSection>
  );
}
