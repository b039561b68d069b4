import type { Catalogue } from './catalogue.js';

/** What the notifier's routes say: webhooks, notices, mail. */
export const notifierMessages = {
  // Root's webhook endpoints (`/api/webhook/*`).
  'webhooks.not_found': { 'zh-CN': 'Webhook 端点不存在', 'en-US': 'webhook endpoint not found' },
  'webhooks.too_many': { 'zh-CN': '最多只能有 {max} 个 Webhook 端点，请先删除一个', 'en-US': 'at most {max} webhook endpoints; delete one first' },
  'webhooks.pattern_malformed': {
    'zh-CN': '"{pattern}" 不是有效的主题模式：用点分隔的小写名称，"*" 代表一个名称，末尾的 ">" 代表其余所有名称',
    'en-US': '"{pattern}" is not a subject pattern: dot-separated lowercase names, "*" for one name, a final ">" for the rest',
  },
  'webhooks.pattern_no_match': {
    'zh-CN': '"{pattern}" 不匹配任何事件（可用的域：{domains}；参见 docs/events.md）',
    'en-US': '"{pattern}" matches no event (domains: {domains}; see docs/events.md)',
  },
  'webhooks.pattern_type': { 'zh-CN': '每个主题都必须是文本', 'en-US': 'each subject must be text' },
  'webhooks.pattern_empty': { 'zh-CN': '主题模式不能为空', 'en-US': 'a subject pattern cannot be empty' },
  'webhooks.pattern_too_long': { 'zh-CN': '主题模式最多 {max} 个字符', 'en-US': 'a subject pattern is at most {max} characters' },
  'webhooks.subjects_type': { 'zh-CN': 'subjects 必须是主题模式的列表', 'en-US': 'subjects must be a list of subject patterns' },
  'webhooks.subjects_empty': { 'zh-CN': '请至少选择一个主题', 'en-US': 'choose at least one subject' },
  'webhooks.subjects_too_many': { 'zh-CN': '最多 {max} 个主题模式', 'en-US': 'at most {max} subject patterns' },
  'webhooks.url_required': { 'zh-CN': 'url 不能为空', 'en-US': 'url is required' },
  'webhooks.url_too_long': { 'zh-CN': 'url 最多 {max} 个字符', 'en-US': 'url is at most {max} characters' },
  'webhooks.url_invalid': { 'zh-CN': 'url 必须是以 http:// 或 https:// 开头的完整地址', 'en-US': 'url must be an absolute http:// or https:// address' },
  'webhooks.url_credentials': { 'zh-CN': 'url 不能包含用户名或密码', 'en-US': 'url must not contain a user name or password' },
  'webhooks.secret_too_short': { 'zh-CN': 'secret 至少 {min} 个字符', 'en-US': 'secret must be at least {min} characters' },
  'webhooks.secret_too_long': { 'zh-CN': 'secret 最多 {max} 个字符', 'en-US': 'secret is at most {max} characters' },
  'webhooks.secret_charset': { 'zh-CN': 'secret 只能包含可打印的 ASCII 字符，且不能有空格', 'en-US': 'secret must be printable ASCII without spaces' },
  'webhooks.description_too_long': { 'zh-CN': 'description 最多 {max} 个字符', 'en-US': 'description is at most {max} characters' },

  // A user's notification settings (`PUT /api/user/setting`, WxPusher binding).
  'notices.field_too_long': { 'zh-CN': '{field} 过长', 'en-US': '{field} is too long' },
  'notices.field_longer_than': { 'zh-CN': '{field} 超过 {max} 个字符', 'en-US': '{field} is longer than {max} characters' },
  'notices.url_invalid': {
    'zh-CN': '{field} 必须是 http(s) 网址，且不能包含用户名或密码',
    'en-US': '{field} must be an http(s) URL without user name or password',
  },
  'notices.notify_type_invalid': { 'zh-CN': 'notify_type 必须是以下之一：{values}', 'en-US': 'notify_type must be one of {values}' },
  'notices.threshold_number': { 'zh-CN': 'quota_warning_threshold 必须是数字', 'en-US': 'quota_warning_threshold must be a number' },
  'notices.threshold_integer': { 'zh-CN': 'quota_warning_threshold 必须是整数', 'en-US': 'quota_warning_threshold must be an integer' },
  'notices.threshold_negative': { 'zh-CN': 'quota_warning_threshold 不能为负数', 'en-US': 'quota_warning_threshold must not be negative' },
  'notices.threshold_too_large': { 'zh-CN': 'quota_warning_threshold 过大', 'en-US': 'quota_warning_threshold is too large' },
  'notices.email_invalid': { 'zh-CN': 'notification_email 必须是邮箱地址', 'en-US': 'notification_email must be an email address' },
  'notices.priority_number': { 'zh-CN': 'gotify_priority 必须是数字', 'en-US': 'gotify_priority must be a number' },
  'notices.priority_integer': { 'zh-CN': 'gotify_priority 必须是整数', 'en-US': 'gotify_priority must be an integer' },
  'notices.priority_range': { 'zh-CN': 'gotify_priority 必须在 0 到 10 之间', 'en-US': 'gotify_priority must be 0 to 10' },
  'notices.code_required': { 'zh-CN': 'code 不能为空', 'en-US': 'code is required' },

  // Mail.
  'mail.private_smtp_off': {
    'zh-CN': '已禁止连接私有网络中的 SMTP 服务器，超级管理员可通过选项 AllowPrivateNetworkSmtp 开启',
    'en-US': 'private-network SMTP servers are off, a root admin can allow them with the option AllowPrivateNetworkSmtp',
  },
} as const satisfies Catalogue;
