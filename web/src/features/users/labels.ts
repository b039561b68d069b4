import { defineMessages } from 'react-intl';
import { Role, UserStatus } from '@aigw/contracts';
import type { Label } from '../../components/LabelTag';

/** The shared role and status names (common locale module), with their tag colours. */
const messages = defineMessages({
  common: { id: 'role.common', defaultMessage: '普通用户' },
  admin: { id: 'role.admin', defaultMessage: '管理员' },
  root: { id: 'role.root', defaultMessage: '超级管理员' },
  unknownRole: { id: 'role.unknown', defaultMessage: '未知身份' },
  enabled: { id: 'userStatus.enabled', defaultMessage: '已激活' },
  disabled: { id: 'userStatus.disabled', defaultMessage: '已封禁' },
  unknownStatus: { id: 'userStatus.unknown', defaultMessage: '未知状态' },
  deleted: { id: 'userStatus.deleted', defaultMessage: '已注销' },
});

/** docs/product.md section 3: 1 ordinary, 10 admin, 100 super admin, anything else unknown. */
export function roleLabel(role: number): Label {
  switch (role) {
    case Role.Common:
      return { label: messages.common, color: 'default' };
    case Role.Admin:
      return { label: messages.admin, color: 'gold' };
    case Role.Root:
      return { label: messages.root, color: 'orange' };
    default:
      return { label: messages.unknownRole, color: 'default' };
  }
}

/** 1 activated, 2 banned, anything else unknown. */
export function statusLabel(status: number): Label {
  switch (status) {
    case UserStatus.Enabled:
      return { label: messages.enabled, color: 'green' };
    case UserStatus.Disabled:
      return { label: messages.disabled, color: 'red' };
    default:
      return { label: messages.unknownStatus, color: 'default' };
  }
}

export const deletedLabel: Label = { label: messages.deleted, color: 'red' };
