import { defineMessages } from 'react-intl';
import { RedemptionStatus } from '@aigw/contracts';
import type { Label } from '../../components/LabelTag';

const messages = defineMessages({
  unused: { id: 'pages.redemptions.status.unused', defaultMessage: '未使用' },
  disabled: { id: 'pages.redemptions.status.disabled', defaultMessage: '已禁用' },
  used: { id: 'pages.redemptions.status.used', defaultMessage: '已使用' },
  unknown: { id: 'pages.redemptions.status.unknown', defaultMessage: '未知状态' },
});

/** A redemption code's status: 1 unused, 2 disabled, 3 used. */
export function redemptionStatusLabel(status: number): Label {
  switch (status) {
    case RedemptionStatus.Unused:
      return { label: messages.unused, color: 'green' };
    case RedemptionStatus.Disabled:
      return { label: messages.disabled, color: 'red' };
    case RedemptionStatus.Used:
      return { label: messages.used, color: 'default' };
    default:
      return { label: messages.unknown, color: 'default' };
  }
}
