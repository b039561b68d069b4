import type { Catalogue } from './catalogue.js';

/**
 * Messages every service says: the error classes' defaults and the words of a failed validation
 * (a zod issue by its code, for schemas that name no message of their own).
 */
export const commonMessages = {
  'common.unauthorized': { 'zh-CN': '未登录或登录已过期，请重新登录', 'en-US': 'not logged in or login expired, please log in again' },
  'common.forbidden': { 'zh-CN': '权限不足', 'en-US': 'insufficient permissions' },
  'common.not_found': { 'zh-CN': '未找到', 'en-US': 'not found' },
  'common.too_many_requests': { 'zh-CN': '请求过于频繁，请稍后再试', 'en-US': 'too many requests, try again later' },
  'common.body_too_large': { 'zh-CN': '请求体过大', 'en-US': 'request body is too large' },
  'validation.required': { 'zh-CN': '不能为空', 'en-US': 'is required' },
  'validation.invalid': { 'zh-CN': '无效', 'en-US': 'is invalid' },
  'validation.type_string': { 'zh-CN': '必须是字符串', 'en-US': 'must be a string' },
  'validation.type_number': { 'zh-CN': '必须是数字', 'en-US': 'must be a number' },
  'validation.type_boolean': { 'zh-CN': '必须是布尔值', 'en-US': 'must be true or false' },
  'validation.type_object': { 'zh-CN': '必须是对象', 'en-US': 'must be an object' },
  'validation.type_array': { 'zh-CN': '必须是数组', 'en-US': 'must be a list' },
  'validation.string_empty': { 'zh-CN': '不能为空', 'en-US': 'cannot be empty' },
  'validation.string_min': { 'zh-CN': '至少 {minimum} 个字符', 'en-US': 'must be at least {minimum} characters' },
  'validation.string_max': { 'zh-CN': '最多 {maximum} 个字符', 'en-US': 'must be at most {maximum} characters' },
  'validation.number_min': { 'zh-CN': '不能小于 {minimum}', 'en-US': 'must be at least {minimum}' },
  'validation.number_above': { 'zh-CN': '必须大于 {minimum}', 'en-US': 'must be greater than {minimum}' },
  'validation.number_max': { 'zh-CN': '不能大于 {maximum}', 'en-US': 'must be at most {maximum}' },
  'validation.number_below': { 'zh-CN': '必须小于 {maximum}', 'en-US': 'must be less than {maximum}' },
  'validation.integer': { 'zh-CN': '必须是整数', 'en-US': 'must be a whole number' },
  'validation.items_min': { 'zh-CN': '至少需要 {minimum} 项', 'en-US': 'needs at least {minimum} items' },
  'validation.items_max': { 'zh-CN': '最多 {maximum} 项', 'en-US': 'takes at most {maximum} items' },
  'validation.format': { 'zh-CN': '格式不正确', 'en-US': 'has an invalid format' },
  'validation.email': { 'zh-CN': '必须是邮箱地址', 'en-US': 'must be an e-mail address' },
  'validation.url': { 'zh-CN': '必须是网址', 'en-US': 'must be a URL' },
  'validation.one_of': { 'zh-CN': '必须是以下之一：{values}', 'en-US': 'must be one of {values}' },
  'validation.unknown_fields': { 'zh-CN': '未知字段：{keys}', 'en-US': 'unknown fields: {keys}' },
  'validation.enabled_or_disabled': { 'zh-CN': '只能是 1（启用）或 2（禁用）', 'en-US': 'must be 1 (enabled) or 2 (disabled)' },
  'validation.multiple_of': { 'zh-CN': '必须是 {divisor} 的倍数', 'en-US': 'must be a multiple of {divisor}' },
} as const satisfies Catalogue;
