import { InputNumber, Space } from 'antd';
import { optionDefinitions, type OptionKey } from '@aigw/contracts';
import { OptionField, OptionSection } from '../OptionSection';
import { useGetOptionsQuery } from '../options-api';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** Quota amounts: each also shown as money, by the stored QuotaPerUnit. */
export function QuotaCard() {
  const t = useText();
  const { data: stored } = useGetOptionsQuery();
  const perUnit = Number(stored?.QuotaPerUnit ?? optionDefinitions.QuotaPerUnit.default);

  const field = (name: OptionKey, label: string, help: string) => (
    <OptionField name={name} label={label} extra={help} input={<QuotaInput quotaPerUnit={perUnit} />} />
  );

  return (
    <OptionSection
      title={t('pages.settings.operation.quota.title', '额度设置')}
      saveLabel={t('pages.settings.operation.quota.save', '保存额度设置')}
      keys={['QuotaForNewUser', 'PreConsumedQuota', 'QuotaForInviter', 'QuotaForInvitee']}
    >
      <FieldGrid>
        {field(
          'QuotaForNewUser',
          t('pages.settings.operation.quota.newUser', '新用户初始额度'),
          t('pages.settings.operation.quota.newUser.help', '注册时赠送的额度'),
        )}
        {field(
          'PreConsumedQuota',
          t('pages.settings.operation.quota.preConsumed', '请求预扣费额度'),
          t('pages.settings.operation.quota.preConsumed.help', '请求未指定 max_tokens 时预先扣除的额度，结束后多退少补'),
        )}
        {field(
          'QuotaForInviter',
          t('pages.settings.operation.quota.inviter', '邀请新用户奖励额度'),
          t('pages.settings.operation.quota.inviter.help', '每邀请一位用户，计入邀请人的待使用收益'),
        )}
        {field(
          'QuotaForInvitee',
          t('pages.settings.operation.quota.invitee', '新用户使用邀请码奖励额度'),
          t('pages.settings.operation.quota.invitee.help', '使用邀请码注册的新用户额外获得的额度'),
        )}
      </FieldGrid>
    </OptionSection>
  );
}

interface QuotaInputProps {
  id?: string;
  value?: number | null;
  onChange?: (value: number | null) => void;
  quotaPerUnit: number;
}

/** A whole quota amount with its value in dollars beside it. */
function QuotaInput({ id, value, onChange, quotaPerUnit }: QuotaInputProps) {
  const t = useText();
  // Up to six decimals, so a small amount (500 quota = $0.001) does not read as zero.
  const dollars = (Number(value ?? 0) || 0) / (quotaPerUnit > 0 ? quotaPerUnit : 1);
  const amount = `$${dollars.toLocaleString('en-US', { maximumFractionDigits: 6 })}`;
  return (
    <Space.Compact block>
      <InputNumber id={id} value={value} onChange={onChange} min={0} precision={0} style={{ width: '100%' }} />
      <Space.Addon style={{ whiteSpace: 'nowrap' }}>{t('pages.settings.operation.quota.currency', '≈ {amount}', { amount })}</Space.Addon>
    </Space.Compact>
  );
}
