import { localeFromAcceptLanguage, type Locale } from './locale.js';

/**
 * What an account log row (top-ups, gifts, an admin's quota change, a task refund, a usage-limit
 * refusal) says, kept as data: a message id and its parameters, in the row's `other` JSON as
 * `message`. Read through the log routes, the row's `content` is this message in the reader's
 * language (the console sends its own as Accept-Language); the stored `content` is the en-US text,
 * for readers of the raw rows and rows written before messages were kept. Amounts are parameters
 * already formatted (`$0.40`), as they stood when the row was written.
 */
export const logMessageTemplates = {
  'topup.redemption': {
    'en-US': 'top-up via redemption code: {quota}, code id {code_id}',
    'zh-CN': '通过兑换码充值 {quota}，兑换码 ID {code_id}',
  },
  'topup.online': {
    'en-US': 'online top-up succeeded, top-up amount: {quota}, paid: {money}',
    'zh-CN': '在线充值成功，充值额度：{quota}，支付金额：{money}',
  },
  'topup.online_by_admin': {
    'en-US': 'online top-up succeeded, top-up amount: {quota}, paid: {money} (completed by admin {admin})',
    'zh-CN': '在线充值成功，充值额度：{quota}，支付金额：{money}（由管理员 {admin} 补单）',
  },
  'gift.new_user': { 'en-US': 'new user gift {quota}', 'zh-CN': '新用户注册赠送 {quota}' },
  'gift.invitee': { 'en-US': 'invite code gift {quota}', 'zh-CN': '使用邀请码赠送 {quota}' },
  'invite.reward': { 'en-US': 'invited a user: reward {quota} (pending transfer)', 'zh-CN': '邀请用户奖励 {quota}（待划转）' },
  'invite.transfer': { 'en-US': 'transferred invite earnings {quota} to the balance', 'zh-CN': '划转邀请收益 {quota} 到余额' },
  'quota.admin_set': { 'en-US': 'admin {admin} changed the quota from {from} to {to}', 'zh-CN': '管理员 {admin} 将额度从 {from} 修改为 {to}' },
  'task.refunded': {
    'en-US': 'task {task_id} ({platform} {action}) failed{reason}; refunded {quota}',
    'zh-CN': '任务 {task_id}（{platform} {action}）失败{reason}；已退还 {quota}',
  },
  'task.not_charged': {
    'en-US': 'task {task_id} ({platform} {action}) failed{reason}; nothing was charged, nothing refunded',
    'zh-CN': '任务 {task_id}（{platform} {action}）失败{reason}；未扣费，无需退还',
  },
  // A usage-limit refusal (billing's limit-logs.ts), one id per scope, "1 request" apart from "{refused} requests".
  'limits.refused_key': {
    'en-US': 'rate limit: API key {field} limit {limit} reached; {refused} requests refused',
    'zh-CN': '速率限制：令牌的 {field} 限额 {limit} 已达到，已拒绝 {refused} 个请求',
  },
  'limits.refused_key_one': {
    'en-US': 'rate limit: API key {field} limit {limit} reached; 1 request refused',
    'zh-CN': '速率限制：令牌的 {field} 限额 {limit} 已达到，已拒绝 1 个请求',
  },
  'limits.refused_user': {
    'en-US': 'rate limit: user {field} limit {limit} reached; {refused} requests refused',
    'zh-CN': '速率限制：用户的 {field} 限额 {limit} 已达到，已拒绝 {refused} 个请求',
  },
  'limits.refused_user_one': {
    'en-US': 'rate limit: user {field} limit {limit} reached; 1 request refused',
    'zh-CN': '速率限制：用户的 {field} 限额 {limit} 已达到，已拒绝 1 个请求',
  },
  'limits.refused_model': {
    'en-US': 'rate limit: model {field} limit {limit} reached; {refused} requests refused',
    'zh-CN': '速率限制：模型的 {field} 限额 {limit} 已达到，已拒绝 {refused} 个请求',
  },
  'limits.refused_model_one': {
    'en-US': 'rate limit: model {field} limit {limit} reached; 1 request refused',
    'zh-CN': '速率限制：模型的 {field} 限额 {limit} 已达到，已拒绝 1 个请求',
  },
  'limits.refused_group_model': {
    'en-US': 'rate limit: model in group {field} limit {limit} reached; {refused} requests refused',
    'zh-CN': '速率限制：分组内模型的 {field} 限额 {limit} 已达到，已拒绝 {refused} 个请求',
  },
  'limits.refused_group_model_one': {
    'en-US': 'rate limit: model in group {field} limit {limit} reached; 1 request refused',
    'zh-CN': '速率限制：分组内模型的 {field} 限额 {limit} 已达到，已拒绝 1 个请求',
  },
  'limits.refused_user_requests': {
    'en-US': 'rate limit: user (per-user request limit) {field} limit {limit} reached; {refused} requests refused',
    'zh-CN': '速率限制：用户（每用户请求数限制）的 {field} 限额 {limit} 已达到，已拒绝 {refused} 个请求',
  },
  'limits.refused_user_requests_one': {
    'en-US': 'rate limit: user (per-user request limit) {field} limit {limit} reached; 1 request refused',
    'zh-CN': '速率限制：用户（每用户请求数限制）的 {field} 限额 {limit} 已达到，已拒绝 1 个请求',
  },
  'limits.refused_channels': {
    'en-US': 'rate limit: every channel of the model {field} limit {limit} reached; {refused} requests refused',
    'zh-CN': '速率限制：该模型的所有渠道的 {field} 限额 {limit} 已达到，已拒绝 {refused} 个请求',
  },
  'limits.refused_channels_one': {
    'en-US': 'rate limit: every channel of the model {field} limit {limit} reached; 1 request refused',
    'zh-CN': '速率限制：该模型的所有渠道的 {field} 限额 {limit} 已达到，已拒绝 1 个请求',
  },
} as const satisfies Record<string, Record<Locale, string>>;

export type LogMessageId = keyof typeof logMessageTemplates;

export interface LogMessage {
  id: LogMessageId;
  params: Record<string, string>;
}

/** The message in `locale`; a parameter the template names but `params` lacks stays as `{name}`. */
export function renderLogMessage(message: LogMessage, locale: Locale): string {
  const template: string = logMessageTemplates[message.id][locale];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => message.params[name] ?? whole);
}

/** The message a row's `other` JSON keeps, or null (a usage row, an older row, unreadable JSON). */
export function logMessageOf(other: string): LogMessage | null {
  if (!other.includes('"message"')) return null;
  try {
    const message = (JSON.parse(other) as { message?: { id?: unknown; params?: unknown } }).message;
    if (!message || typeof message.id !== 'string' || !(message.id in logMessageTemplates)) return null;
    const params = message.params && typeof message.params === 'object' ? (message.params as Record<string, unknown>) : {};
    return { id: message.id as LogMessageId, params: Object.fromEntries(Object.entries(params).map(([key, value]) => [key, String(value)])) };
  } catch {
    return null;
  }
}

/** A log row's text for a reader whose console sends `acceptLanguage`. */
export function logContentFor(row: { content: string; other: string }, acceptLanguage: string | undefined): string {
  const message = logMessageOf(row.other);
  return message ? renderLogMessage(message, localeFromAcceptLanguage(acceptLanguage)) : row.content;
}
