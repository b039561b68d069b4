import { defineMessages, type MessageDescriptor } from 'react-intl';
import type { AuditAction, AuditTargetType } from '@aigw/contracts';

/** The name of every audited action (contracts' closed list: a new one fails the type check here). */
export const actionLabels: Record<AuditAction, MessageDescriptor> = defineMessages({
  'user.created': { id: 'pages.settings.audit.action.userCreated', defaultMessage: '创建用户' },
  'user.updated': { id: 'pages.settings.audit.action.userUpdated', defaultMessage: '编辑用户' },
  'user.deleted': { id: 'pages.settings.audit.action.userDeleted', defaultMessage: '注销用户' },
  'user.role_changed': { id: 'pages.settings.audit.action.userRoleChanged', defaultMessage: '变更角色' },
  'user.status_changed': { id: 'pages.settings.audit.action.userStatusChanged', defaultMessage: '启用/封禁用户' },
  'user.quota_changed': { id: 'pages.settings.audit.action.userQuotaChanged', defaultMessage: '调整额度' },
  'user.2fa_reset': { id: 'pages.settings.audit.action.user2faReset', defaultMessage: '重置两步验证' },
  'user.passkey_reset': { id: 'pages.settings.audit.action.userPasskeyReset', defaultMessage: '重置通行密钥' },
  'channel.created': { id: 'pages.settings.audit.action.channelCreated', defaultMessage: '创建渠道' },
  'channel.updated': { id: 'pages.settings.audit.action.channelUpdated', defaultMessage: '编辑渠道' },
  'channel.deleted': { id: 'pages.settings.audit.action.channelDeleted', defaultMessage: '删除渠道' },
  'channel.key_revealed': { id: 'pages.settings.audit.action.channelKeyRevealed', defaultMessage: '查看渠道密钥' },
  'channel.private_network_set': { id: 'pages.settings.audit.action.channelPrivateNetworkSet', defaultMessage: '设置内网访问' },
  'option.updated': { id: 'pages.settings.audit.action.optionUpdated', defaultMessage: '修改设置' },
  'webhook.created': { id: 'pages.settings.audit.action.webhookCreated', defaultMessage: '创建 Webhook' },
  'webhook.updated': { id: 'pages.settings.audit.action.webhookUpdated', defaultMessage: '编辑 Webhook' },
  'webhook.deleted': { id: 'pages.settings.audit.action.webhookDeleted', defaultMessage: '删除 Webhook' },
  'redemption.created': { id: 'pages.settings.audit.action.redemptionCreated', defaultMessage: '创建兑换码' },
  'redemption.updated': { id: 'pages.settings.audit.action.redemptionUpdated', defaultMessage: '编辑兑换码' },
  'redemption.deleted': { id: 'pages.settings.audit.action.redemptionDeleted', defaultMessage: '删除兑换码' },
  'topup.completed': { id: 'pages.settings.audit.action.topupCompleted', defaultMessage: '手动完成充值' },
});

/** The name of every target type. */
export const targetTypeLabels: Record<AuditTargetType, MessageDescriptor> = defineMessages({
  user: { id: 'pages.settings.audit.target.user', defaultMessage: '用户' },
  channel: { id: 'pages.settings.audit.target.channel', defaultMessage: '渠道' },
  option: { id: 'pages.settings.audit.target.option', defaultMessage: '设置项' },
  webhook: { id: 'pages.settings.audit.target.webhook', defaultMessage: 'Webhook' },
  redemption: { id: 'pages.settings.audit.target.redemption', defaultMessage: '兑换码' },
  topup: { id: 'pages.settings.audit.target.topup', defaultMessage: '充值订单' },
});
