import type { Catalogue } from './catalogue.js';

/** What the billing service's routes say: tokens, redemption codes, top-ups, logs. */
export const billingMessages = {
  // Shared by tokens and redemption codes.
  'billing.name_required': { 'zh-CN': '名称不能为空', 'en-US': 'name is required' },
  'billing.count_max': { 'zh-CN': '数量最多为 {maximum}', 'en-US': 'count must be at most {maximum}' },

  // Quota amounts, and an admin's change of a balance from the user editor.
  'quota.negative': { 'zh-CN': '不能为负数', 'en-US': 'must not be negative' },
  'quota.too_large': { 'zh-CN': '数值过大', 'en-US': 'is too large' },
  'quota.too_small': { 'zh-CN': '数值过小', 'en-US': 'is too small' },
  'quota.set_negative': { 'zh-CN': '余额不能为负数；扣除额度请使用 delta', 'en-US': 'a balance cannot be negative; take money away with a delta' },
  'quota.quota_or_delta': { 'zh-CN': 'quota 和 delta 必须且只能提交其中一个', 'en-US': 'exactly one of quota and delta' },
  'quota.expected_without_quota': { 'zh-CN': 'expected_quota 只能与 quota 一起提交', 'en-US': 'expected_quota only goes with quota' },
  'quota.balance_changed': {
    'zh-CN': '余额在加载后已变化（当前为 {current}，加载时为 {expected}），请重新加载该用户后再试',
    'en-US': 'the balance changed since you loaded it (it is now {current}, you loaded {expected}); reload the user and try again',
  },
  'quota.out_of_range': { 'zh-CN': '余额将超出范围（{target}）', 'en-US': 'the balance would be out of range ({target})' },
  'quota.below_zero': {
    'zh-CN': '余额不能低于 0：当前为 {current}，最多只能扣除 {maximum}',
    'en-US': 'the balance cannot go below 0: it is {current}, so at most {maximum} can be taken away',
  },

  // Tokens.
  'tokens.not_found': { 'zh-CN': '令牌不存在', 'en-US': 'token not found' },
  'tokens.name_too_long': { 'zh-CN': '名称不能超过 {maximum} 个字符', 'en-US': 'name must be at most {maximum} characters' },
  'tokens.count_min': { 'zh-CN': '新建数量必须是正整数', 'en-US': 'count must be a positive integer' },
  'tokens.drawing_mode_invalid': { 'zh-CN': '绘图模式必须是 fast、relax 或 turbo', 'en-US': 'each mode must be fast, relax or turbo' },
  'tokens.drawing_modes_invalid': {
    'zh-CN': '允许的绘图模式必须是模式列表（fast、relax、turbo）',
    'en-US': 'drawing_modes must be a list of modes (fast, relax, turbo)',
  },
  'tokens.drawing_modes_too_many': { 'zh-CN': '允许的绘图模式条目过多', 'en-US': 'drawing_modes has too many entries' },
  'tokens.rate_limit_message_type': { 'zh-CN': '限流提示内容必须是文本', 'en-US': 'rate_limit_message must be text' },
  'tokens.rate_limit_message_too_long': {
    'zh-CN': '限流提示内容不能超过 {maximum} 个字符',
    'en-US': 'rate_limit_message must be at most {maximum} characters',
  },
  'tokens.rate_limit_message_one_line': {
    'zh-CN': '限流提示内容必须是单行文本，不能包含控制字符',
    'en-US': 'rate_limit_message must be one line of text without control characters',
  },
  'tokens.group_not_usable': { 'zh-CN': '无权使用分组 "{group}"', 'en-US': '"{group}" is not a group you may use' },
  'tokens.expired_cannot_enable': {
    'zh-CN': '令牌已过期，无法启用。请先修改过期时间，或设为永不过期',
    'en-US': 'the token has expired and cannot be enabled; change its expiry time or set it to never expire first',
  },
  'tokens.exhausted_cannot_enable': {
    'zh-CN': '令牌额度已用尽，无法启用。请先增加剩余额度，或设为无限额度',
    'en-US': 'the token has used up its quota and cannot be enabled; raise its remaining quota or make it unlimited first',
  },
  'tokens.key_unavailable': { 'zh-CN': '该令牌的密钥已无法显示，请新建令牌', 'en-US': 'this key can no longer be shown; create a new token' },
  'tokens.ids_duplicate': { 'zh-CN': '每个 ID 只能出现一次', 'en-US': 'each id may appear only once' },

  // Redemption codes.
  'redemption.invalid': { 'zh-CN': '兑换码无效或已被使用', 'en-US': 'invalid or already used redemption code' },
  'redemption.not_found': { 'zh-CN': '兑换码不存在', 'en-US': 'redemption code not found' },
  'redemption.key_required': { 'zh-CN': '请输入兑换码', 'en-US': 'please enter the redemption code' },
  'redemption.name_length': { 'zh-CN': '名称长度应为 1 到 {maximum} 个字符', 'en-US': 'name must be 1 to {maximum} characters' },
  'redemption.count_min': { 'zh-CN': '生成数量必须大于 0', 'en-US': 'count must be above 0' },
  'redemption.used_no_edit': { 'zh-CN': '已使用的兑换码不能编辑', 'en-US': 'a used redemption code cannot be edited' },
  'redemption.used_no_toggle': {
    'zh-CN': '兑换码已被使用，不能启用或禁用',
    'en-US': 'the redemption code has been used and cannot be enabled or disabled',
  },
  'redemption.status_required': { 'zh-CN': '使用 status_only 时必须提供', 'en-US': 'required with status_only' },

  // Invite earnings.
  'transfer.minimum': { 'zh-CN': 'quota：最小划转额度为 {minimum}', 'en-US': 'quota: minimum transfer amount is {minimum}' },
  'transfer.exceeds_earnings': { 'zh-CN': '超出待划转的邀请收益', 'en-US': 'more than your pending invite earnings' },
  'transfer.done': { 'zh-CN': '已划转 {quota} 到余额', 'en-US': 'transferred {quota}' },

  // Online top-up.
  'topup.disabled': { 'zh-CN': '管理员未开启在线充值！', 'en-US': 'the administrator has not turned on online top-up' },
  'topup.amount_minimum': { 'zh-CN': '充值数量不能小于 {minimum}', 'en-US': 'the top-up amount cannot be less than {minimum}' },
  'topup.price_misconfigured': { 'zh-CN': '充值价格配置有误，请联系管理员', 'en-US': 'the top-up price is misconfigured, contact the administrator' },
  'topup.payable_too_small': { 'zh-CN': '实付金额必须大于 0.01', 'en-US': 'the amount payable must be more than 0.01' },
  'topup.payment_method_invalid': { 'zh-CN': '必须是 zfb（支付宝）或 wx（微信支付）', 'en-US': 'must be zfb (Alipay) or wx (WeChat Pay)' },
  'topup.order_not_found': { 'zh-CN': '充值订单不存在', 'en-US': 'top-up order not found' },
  'topup.order_not_pending': {
    'zh-CN': '订单状态为 {status}，只有待支付的订单可以补单',
    'en-US': 'the order is {status}, only a pending order can be completed',
  },

  // Usage data (the dashboard).
  'data.start_after_end': { 'zh-CN': '不能晚于 end_timestamp', 'en-US': 'must not be after end_timestamp' },
  'data.range_too_long': { 'zh-CN': '时间范围最多为 {days} 天', 'en-US': 'the time range must be at most {days} days' },

  // Usage limits (a key's, a user's, a group's, a model's, a channel's).
  'limits.amount_invalid': { 'zh-CN': '{field} 必须是不小于 0 的整数（0 表示不限制）', 'en-US': '{field} must be a whole number of 0 or more (0 = unlimited)' },
  'limits.amount_too_large': { 'zh-CN': '{field} 不能大于 1,000,000,000', 'en-US': '{field} must be at most 1,000,000,000' },
  'limits.unknown': {
    'zh-CN': '未知的限制 {keys}：可用的限制为 rpm、rpd、tpm、tpd 和 concurrency',
    'en-US': 'unknown limit {keys}: limits are rpm, rpd, tpm, tpd and concurrency',
  },
  'limits.scope_invalid': { 'zh-CN': 'scope 必须是 key、user、channel 或 model', 'en-US': 'scope must be key, user, channel or model' },
} as const satisfies Catalogue;
