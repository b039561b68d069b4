import { defineMessages } from 'react-intl';
import { TokenStatus, type TokenView } from '@aigw/contracts';
import type { Label } from '../../components/LabelTag';

const messages = defineMessages({
  limitedModels: { id: 'pages.tokens.status.limitedModels', defaultMessage: '限制模型' },
  enabled: { id: 'pages.tokens.status.enabled', defaultMessage: '已启用' },
  disabled: { id: 'pages.tokens.status.disabled', defaultMessage: '已禁用' },
  expired: { id: 'pages.tokens.status.expired', defaultMessage: '已过期' },
  exhausted: { id: 'pages.tokens.status.exhausted', defaultMessage: '已耗尽' },
  unknown: { id: 'pages.tokens.status.unknown', defaultMessage: '未知状态' },
});

/** A token's status; an enabled token limited to some models says so instead. */
export function tokenStatusLabel(token: TokenView): Label {
  switch (token.status) {
    case TokenStatus.Enabled:
      return token.model_limits_enabled ? { label: messages.limitedModels, color: 'blue' } : { label: messages.enabled, color: 'green' };
    case TokenStatus.Disabled:
      return { label: messages.disabled, color: 'red' };
    case TokenStatus.Expired:
      return { label: messages.expired, color: 'gold' };
    case TokenStatus.Exhausted:
      return { label: messages.exhausted, color: 'default' };
    default:
      return { label: messages.unknown, color: 'default' };
  }
}
