import type { Catalogue } from './catalogue.js';

/** What the billing service's routes say: tokens, redemption codes, top-ups, logs. */
export const billingMessages = {
  'redemption.invalid': { 'zh-CN': '兑换码无效或已被使用', 'en-US': 'invalid or already used redemption code' },
  'transfer.minimum': { 'zh-CN': 'quota：最小划转额度为 {minimum}', 'en-US': 'quota: minimum transfer amount is {minimum}' },
  'topup.disabled': { 'zh-CN': '管理员未开启在线充值！', 'en-US': 'the administrator has not turned on online top-up' },
} as const satisfies Catalogue;
