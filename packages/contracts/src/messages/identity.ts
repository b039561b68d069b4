import type { Catalogue } from './catalogue.js';

/** What the identity service's routes say: sign-in, registration, users, options, profile. */
export const identityMessages = {
  'auth.wrong_credentials': { 'zh-CN': '用户名或密码错误，或用户已被封禁', 'en-US': 'username or password is wrong, or the user has been banned' },
  'users.credentials_required': { 'zh-CN': '用户名和密码不能为空', 'en-US': 'username and password cannot be empty' },

  // Users: the fields of a user, the user editor and the level rules of managing users.
  'users.enter_credentials': { 'zh-CN': '请输入用户名和密码', 'en-US': 'please enter username and password' },
  'users.username_required': { 'zh-CN': '用户名不能为空', 'en-US': 'username is required' },
  'users.username_too_long': { 'zh-CN': '用户名最多 {maximum} 个字符', 'en-US': 'username must be at most {maximum} characters' },
  'users.username_taken': { 'zh-CN': '该用户名已被占用', 'en-US': 'already taken' },
  'users.password_too_short': { 'zh-CN': '密码长度不得小于 {minimum} 位', 'en-US': 'password length must not be less than {minimum}' },
  'users.password_too_long': { 'zh-CN': '密码最多 {maximum} 个字符', 'en-US': 'password must be at most {maximum} characters' },
  'users.passwords_differ': { 'zh-CN': '两次输入的密码不一致', 'en-US': 'the two passwords do not match' },
  'users.display_name_too_long': { 'zh-CN': '显示名称最多 {maximum} 个字符', 'en-US': 'display_name must be at most {maximum} characters' },
  'users.email_invalid': { 'zh-CN': '邮箱地址格式不正确', 'en-US': 'email is not a valid address' },
  'users.email_taken': { 'zh-CN': '该邮箱已被使用', 'en-US': 'already used' },
  'users.role_invalid': { 'zh-CN': '必须是 1（普通用户）、10（管理员）或 100（超级管理员）', 'en-US': 'must be 1 (user), 10 (admin) or 100 (super admin)' },
  'users.amount_not_integer': { 'zh-CN': '{field} 必须是整数', 'en-US': '{field} must be an integer' },
  'users.amount_too_small': { 'zh-CN': '{field} 过小', 'en-US': '{field} is too small' },
  'users.amount_too_large': { 'zh-CN': '{field} 过大', 'en-US': '{field} is too large' },
  'users.quota_negative': { 'zh-CN': '余额不能为负数；扣除额度请使用 quota_delta', 'en-US': 'a balance cannot be negative; take money away with quota_delta' },
  'users.quota_delta_with_quota': { 'zh-CN': '不能与 quota 同时提交', 'en-US': 'cannot be sent together with quota' },
  'users.expected_quota_alone': { 'zh-CN': '只能与 quota 一起提交', 'en-US': 'only goes with quota' },
  'users.not_found': { 'zh-CN': '用户不存在', 'en-US': 'user not found' },
  'users.deregistered': { 'zh-CN': '该用户已注销', 'en-US': 'the user has been deregistered' },
  'users.create_role_too_high': { 'zh-CN': '不能创建与自己同级或更高级别的用户', 'en-US': 'cannot create a user with a role at or above your own' },
  'users.manage_same_or_higher': { 'zh-CN': '无权管理同级或更高级别的用户', 'en-US': 'no permission to manage a user of the same or a higher level' },
  'users.promote_root_only': { 'zh-CN': '只有超级管理员可以将用户提升为管理员', 'en-US': 'only the super admin can promote users' },
  'users.already_admin': { 'zh-CN': '该用户已经是管理员', 'en-US': 'the user is already an admin' },
  'users.demote_root_only': { 'zh-CN': '只有超级管理员可以将管理员降为普通用户', 'en-US': 'only the super admin can demote users' },
  'users.already_common': { 'zh-CN': '该用户已经是普通用户', 'en-US': 'the user is already an ordinary user' },

  // Usernames that could pass for another user's (contracts' username.ts), after "username: ".
  'username.control_characters': { 'zh-CN': '不能包含控制字符', 'en-US': 'must not contain control characters' },
  'username.format_characters': {
    'zh-CN': '不能包含不可见的格式字符或文字方向控制字符（如零宽空格、从右到左覆盖符）',
    'en-US': 'must not contain invisible formatting or text-direction characters (such as zero-width spaces or right-to-left overrides)',
  },
  'username.invisible_characters': {
    'zh-CN': '不能包含未分配字符、私用区字符或行分隔符',
    'en-US': 'must not contain unassigned, private-use or line-separator characters',
  },
  'username.odd_spaces': { 'zh-CN': '除普通空格外不能包含其他空白字符', 'en-US': 'must not contain spaces other than the ordinary space' },
  'username.mixed_scripts': {
    'zh-CN': '混用了多种文字（{scripts}），可能被误认为其他用户名；请只使用同一种文字的字母',
    'en-US': 'mixes scripts ({scripts}), so it could pass for another name; use the letters of one script',
  },

  // The signed-in user's own account.
  'self.original_password_required': { 'zh-CN': '修改密码需要填写原密码', 'en-US': 'original_password is required to change the password' },
  'self.wrong_password': { 'zh-CN': '原密码错误', 'en-US': 'the current password is wrong' },
  'self.root_cannot_delete': { 'zh-CN': '超级管理员不能注销自己的账户', 'en-US': 'the super admin cannot delete their own account' },
  'self.email_code_required': { 'zh-CN': '请输入邮箱验证码', 'en-US': 'please enter email verification code' },
  'self.wrong_code': { 'zh-CN': '验证码错误或已过期', 'en-US': 'wrong or expired verification code' },

  // Settings (PUT /api/option/), after the option's key.
  'options.unknown_key': { 'zh-CN': '未知的设置项 “{key}”', 'en-US': "unknown option '{key}'" },
  'options.expected_boolean': { 'zh-CN': '必须是 true 或 false', 'en-US': 'expected true or false' },
  'options.expected_number': { 'zh-CN': '必须是数字', 'en-US': 'expected a number' },
  'options.invalid_json': { 'zh-CN': '不是合法的 JSON 字符串', 'en-US': 'not a legal JSON string' },
  'options.http_url': { 'zh-CN': '必须是 http(s) 网址', 'en-US': 'expected an http(s) URL' },
  'options.host': { 'zh-CN': '必须是主机名或 IP 地址，不含协议、端口和路径', 'en-US': 'expected a host name or IP address, without scheme, port or path' },
  'options.host_name': { 'zh-CN': '必须是主机名，不含协议、端口和路径', 'en-US': 'expected a host name, without scheme, port or path' },
  'options.mailbox': { 'zh-CN': '必须是邮箱地址（或 名称 <地址>）', 'en-US': 'expected an email address (or Name <address>)' },
  'options.origins': { 'zh-CN': '必须是以逗号分隔的来源（scheme://host[:port]）', 'en-US': 'expected origins (scheme://host[:port]) separated by commas' },
  'options.set_first': { 'zh-CN': '请先设置 {keys}', 'en-US': 'set {keys} first' },
  'options.private_smtp_off': {
    'zh-CN': '已禁止使用私有网络中的 SMTP 服务器，超级管理员可先开启选项 AllowPrivateNetworkSmtp',
    'en-US': 'private-network SMTP servers are off, a root admin can allow them with the option AllowPrivateNetworkSmtp (set it first)',
  },
  'options.smtp_in_use': {
    'zh-CN': '请先关闭 EmailVerificationEnabled（否则注册会等待无法发出的验证码）',
    'en-US': 'turn EmailVerificationEnabled off first (registration would wait for codes that cannot be sent)',
  },

  // Users' notification settings (PUT /api/user/setting) and their WxPusher binding.
  'notify.webhook_url_required': { 'zh-CN': '使用 Webhook 通知时必须填写 webhook_url', 'en-US': 'webhook_url is required for webhook notifications' },
  'notify.bark_url_required': { 'zh-CN': '使用 Bark 通知时必须填写 bark_url', 'en-US': 'bark_url is required for Bark notifications' },
  'notify.gotify_url_required': { 'zh-CN': '使用 Gotify 通知时必须填写 gotify_url', 'en-US': 'gotify_url is required for Gotify notifications' },
  'notify.gotify_token_required': { 'zh-CN': '使用 Gotify 通知时必须填写 gotify_token', 'en-US': 'gotify_token is required for Gotify notifications' },
  'notify.wxpusher_unbound': {
    'zh-CN': '请先绑定 WxPusher（扫描二维码）再使用 WxPusher 通知',
    'en-US': 'bind WxPusher first (scan the QR code) to use WxPusher notifications',
  },
  'notify.address_unchecked': { 'zh-CN': '暂时无法检查该地址，请重试', 'en-US': 'the address could not be checked, try again' },
  'wxpusher.not_configured': {
    'zh-CN': '管理员未配置 WxPusher（WxPusherAppToken）',
    'en-US': 'the administrator has not configured WxPusher (WxPusherAppToken)',
  },
  'wxpusher.unreachable': { 'zh-CN': '无法连接 WxPusher，请稍后再试', 'en-US': 'WxPusher could not be reached, try again later' },
  'wxpusher.unexpected_answer': {
    'zh-CN': 'WxPusher 返回异常（HTTP {status}），请稍后再试',
    'en-US': 'WxPusher answered unexpectedly (HTTP {status}), try again later',
  },
  'wxpusher.qr_code_refused': { 'zh-CN': 'WxPusher 拒绝生成二维码：{reason}', 'en-US': 'WxPusher refused to make a QR code: {reason}' },
  'wxpusher.qr_code_stale': { 'zh-CN': '二维码已过期或不属于你，请重新获取', 'en-US': 'this QR code has expired or is not yours: fetch a new one' },
} as const satisfies Catalogue;
