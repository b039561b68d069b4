import { defineMessages, type MessageDescriptor } from 'react-intl';
import { LogType } from '@aigw/contracts';
import type { Label } from '../../components/LabelTag';

const messages = defineMessages({
  all: { id: 'pages.logs.type.all', defaultMessage: '全部' },
  topup: { id: 'pages.logs.type.topup', defaultMessage: '充值' },
  consume: { id: 'pages.logs.type.consume', defaultMessage: '消费' },
  manage: { id: 'pages.logs.type.manage', defaultMessage: '管理' },
  system: { id: 'pages.logs.type.system', defaultMessage: '系统' },
  error: { id: 'pages.logs.type.error', defaultMessage: '错误' },
  unknown: { id: 'pages.logs.type.unknown', defaultMessage: '未知' },
});

/** The type filter's choices (docs/product.md section 9: all, top-up, consumption, admin, system; and the established product's newer error type, which usage-limit refusals write). */
export const logTypeLabels: Record<(typeof LogType)[keyof typeof LogType], MessageDescriptor> = {
  [LogType.All]: messages.all,
  [LogType.Topup]: messages.topup,
  [LogType.Consume]: messages.consume,
  [LogType.Manage]: messages.manage,
  [LogType.System]: messages.system,
  [LogType.Error]: messages.error,
};

/** A row's type tag: the established product's colours. */
export function logTypeLabel(type: number): Label {
  switch (type) {
    case LogType.Topup:
      return { label: messages.topup, color: 'cyan' };
    case LogType.Consume:
      return { label: messages.consume, color: 'green' };
    case LogType.Manage:
      return { label: messages.manage, color: 'orange' };
    case LogType.System:
      return { label: messages.system, color: 'purple' };
    case LogType.Error:
      return { label: messages.error, color: 'red' };
    default:
      return { label: messages.unknown, color: 'default' };
  }
}
