import type { Catalogue } from './catalogue.js';

/** What the gateway, the platform's shared routes and the relay's console routes say. */
export const gatewayMessages = {
  'gateway.use_post': { 'zh-CN': '{path} 会修改数据，请使用 POST', 'en-US': '{path} changes state: use POST' },

  // Every service: unknown paths, row ids, the factory password, IP lists.
  'platform.invalid_url': { 'zh-CN': '无效的网址（{method} {path}）', 'en-US': 'Invalid URL ({method} {path})' },
  'platform.id_integer': { 'zh-CN': 'id 必须是整数', 'en-US': 'id must be an integer' },
  'platform.id_positive': { 'zh-CN': 'id 必须是正数', 'en-US': 'id must be positive' },
  'platform.id_too_large': { 'zh-CN': 'id 过大', 'en-US': 'id is too large' },
  'platform.password_change_required': {
    'zh-CN':
      '超级管理员仍在使用出厂默认密码，且本服务器可被其他机器访问：请先修改密码（个人设置，或调用 PUT /api/user/self 并提供 original_password 和 password）',
    'en-US':
      'the super admin still has the factory default password and this server is reachable from other machines: ' +
      'change the password first (personal settings, or PUT /api/user/self with original_password and password)',
  },
  'platform.ip_entry_invalid': { 'zh-CN': '"{entry}" 不是有效的 IP 地址或 CIDR 网段', 'en-US': '"{entry}" is not an IP address or CIDR range' },
  'platform.ip_entries_max': { 'zh-CN': '最多 {max} 条', 'en-US': 'at most {max} entries' },

  // Root's dead letters (`/api/dead_letter/<service>/*`).
  'dead_letters.not_found': { 'zh-CN': '死信不存在', 'en-US': 'dead letter not found' },
  'dead_letters.replay_failed': { 'zh-CN': '重放失败', 'en-US': 'replay failed' },
  'dead_letters.no_consumer': {
    'zh-CN': '{service} 中没有运行 {pattern} 的消费者 {consumer}',
    'en-US': 'no consumer {consumer} of {pattern} runs in {service}',
  },

  // The egress guard's refusals (rule R1): shown when a URL is saved, recorded in English on deliveries.
  'egress.invalid_url': { 'zh-CN': '出站请求已拦截：不是有效的完整网址', 'en-US': 'egress blocked: not a valid absolute URL' },
  'egress.scheme': {
    'zh-CN': '出站请求已拦截：不允许 {scheme} 协议（仅限 http 和 https）',
    'en-US': 'egress blocked: scheme {scheme} is not allowed (http and https only)',
  },
  'egress.userinfo': {
    'zh-CN': '出站请求已拦截：网址中不能包含凭据，请放在请求头中发送',
    'en-US': 'egress blocked: credentials in the URL are not allowed; send them in a header',
  },
  'egress.port': {
    'zh-CN': '出站请求已拦截：不允许端口 {port}（仅限 80、443 或 1024 及以上）',
    'en-US': 'egress blocked: port {port} is not allowed (80, 443 or 1024 and above)',
  },
  // These two end where the refusal's own words (what lifts the rule) follow.
  'egress.address': {
    'zh-CN': '出站请求已拦截：{address} 属于 {label} 地址段（{cidr}）；',
    'en-US': 'egress blocked: {address} is a {label} address ({cidr}); ',
  },
  'egress.resolved_address': {
    'zh-CN': '出站请求已拦截：{host}（解析为 {address}）属于 {label} 地址段（{cidr}）；',
    'en-US': 'egress blocked: {host} (resolves to {address}) is a {label} address ({cidr}); ',
  },
  'egress.private_network_off': {
    'zh-CN': '已禁止访问私有网络中的上游，超级管理员可通过选项 {option} 开启',
    'en-US': 'private-network upstreams are off, a root admin can allow them with the option {option}',
  },
  'egress.channel_private_network': {
    'zh-CN': '该渠道不能访问私有网络，管理员可在渠道上开启（allow_private_network）',
    'en-US': 'this channel may not reach private networks; an admin can allow it on the channel (allow_private_network)',
  },
  'egress.host_unresolved': { 'zh-CN': '无法解析主机 {host}', 'en-US': 'the host {host} does not resolve' },

  // Bounds on a JSON body's shape (every app, before validation).
  'json.too_many_values': { 'zh-CN': '请求体包含的值超过 {max} 个', 'en-US': 'the request body holds more than {max} values' },
  'json.too_deep': { 'zh-CN': '嵌套超过 {max} 层', 'en-US': 'nested deeper than {max} levels' },

  // The relay's console routes: `/api/limits/use`.
  'usage.id_positive': { 'zh-CN': '必须是正整数', 'en-US': 'must be a positive whole number' },
} as const satisfies Catalogue;
