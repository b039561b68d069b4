import type { Catalogue } from './catalogue.js';

/** What the channels service's routes say: channels, their keys, models. */
export const channelsMessages = {
  'channels.select_to_delete': { 'zh-CN': '请先选择要删除的通道！', 'en-US': 'select the channels to delete first' },
  'channels.select_to_tag': { 'zh-CN': '请先选择要设置标签的渠道！', 'en-US': 'select the channels to tag first' },

  // The channel form (POST and PUT /api/channel/); a message starting with its field's name names it in both languages.
  'channel.not_found': { 'zh-CN': '渠道不存在', 'en-US': 'channel not found' },
  'channels.type_unknown': { 'zh-CN': '未知的渠道类型', 'en-US': 'type is not a known channel type' },
  'channels.name_required': { 'zh-CN': '请输入渠道名称', 'en-US': 'name is required' },
  'channels.group_required': { 'zh-CN': '请选择可以使用该渠道的分组', 'en-US': 'group is required' },
  'channels.models_required': { 'zh-CN': '请至少选择一个模型！', 'en-US': 'models is required' },
  'channels.list_empty': { 'zh-CN': '{field}：至少需要填写一项', 'en-US': '{field}: at least one is required' },
  'channels.list_item_too_long': { 'zh-CN': '{field}：“{item}…”超过 {max} 个字符', 'en-US': '{field}: "{item}…" is longer than {max} characters' },
  'channels.model_mapping_json': { 'zh-CN': '模型映射必须是合法的 JSON 格式！', 'en-US': 'model_mapping must be a JSON object' },
  'channels.status_code_mapping_json': { 'zh-CN': '状态码复写必须是合法的 JSON 格式！', 'en-US': 'status_code_mapping must be a JSON object' },
  'channels.param_override_json': { 'zh-CN': '参数覆盖必须是合法的 JSON 格式！', 'en-US': 'param_override must be a JSON object' },
  'channels.setting_json': { 'zh-CN': '渠道额外设置必须是合法的 JSON 格式！', 'en-US': 'setting must be a JSON object' },
  'channels.mapping_value_string': { 'zh-CN': '{field}：“{name}”的值必须是字符串', 'en-US': '{field}: the value of "{name}" must be a string' },
  'channel_key.required': { 'zh-CN': '请输入密钥', 'en-US': 'key is required' },
  'channel_key.too_many_lines': { 'zh-CN': 'key：一次最多 {max} 个密钥（每行一个）', 'en-US': 'key: at most {max} keys (lines) at once' },
  'channel_key.line': { 'zh-CN': '（第 {line} 行）', 'en-US': '(line {line})' },
  'channel_key.format_aws': {
    'zh-CN': 'key：AWS Bedrock 密钥的格式为“Access Key|Secret Key|Region”（可加第四段 Session Token），或在“other”中填写区域',
    'en-US': 'key: an AWS Bedrock key is "access key|secret key|region" (a fourth part: a session token), or give the region in "other"',
  },
  'channel_key.format_vertex': {
    'zh-CN': 'key：Vertex AI 密钥须为服务账号的 JSON 密钥，包含 project_id、client_email 和 private_key',
    'en-US': 'key: a Vertex AI key is a service-account JSON key with project_id, client_email and private_key',
  },
  'channel_key.format_baidu': { 'zh-CN': 'key：百度密钥的格式为“APIKey|SecretKey”', 'en-US': 'key: a Baidu key is "API key|secret key"' },
  'channel_key.format_zhipu': { 'zh-CN': 'key：智谱 v3 密钥的格式为“id.secret”', 'en-US': 'key: a Zhipu v3 key is "id.secret"' },
  'channel_key.format_spark': {
    'zh-CN': 'key：讯飞星火密钥的格式为“APPID|APISecret|APIKey”',
    'en-US': 'key: an iFlytek Spark key is "APPID|APISecret|APIKey"',
  },
  'channel_key.format_hunyuan': {
    'zh-CN': 'key：腾讯混元密钥的格式为“AppId|SecretId|SecretKey”',
    'en-US': 'key: a Tencent Hunyuan key is "AppId|SecretId|SecretKey"',
  },
  'channel_key.format_coze': {
    'zh-CN': 'key：扣子密钥为一个访问令牌（个人访问令牌 pat_...）',
    'en-US': 'key: a Coze key is one access token (a personal access token, pat_...)',
  },
  'channel_key.format_codex': {
    'zh-CN': 'key：Codex 密钥为 ChatGPT 账号的 JSON 凭据，包含 access_token 和 account_id（以及用于刷新访问令牌的 refresh_token）',
    'en-US': "key: a Codex key is the ChatGPT account's JSON with access_token and account_id (and refresh_token to renew the access token)",
  },
  'channel_key.format_codex_missing': {
    'zh-CN': 'key：Codex 密钥为 ChatGPT 账号的 JSON 凭据，包含 access_token 和 account_id（以及用于刷新访问令牌的 refresh_token）；缺少 {fields}',
    'en-US': "key: a Codex key is the ChatGPT account's JSON with access_token and account_id (and refresh_token to renew the access token); missing {fields}",
  },
  'channel_key.format_other': { 'zh-CN': 'key：密钥格式与渠道类型不符', 'en-US': 'key: the key does not fit its channel type' },
  'multi_key.mode_required': {
    'zh-CN': 'key：多个密钥会组成一个多密钥渠道，请选择 multi_key_mode（random 或 polling）',
    'en-US': 'key: several keys make a channel with many keys; choose multi_key_mode (random or polling)',
  },
  'multi_key.too_many': { 'zh-CN': 'key：一个渠道最多 {max} 个密钥', 'en-US': 'key: at most {max} keys in one channel' },

  // Tags (the established console's words).
  'channels.tag_required': { 'zh-CN': '标签不能为空！', 'en-US': 'tag cannot be empty' },
  'channels.tag_no_change': { 'zh-CN': '没有任何修改！', 'en-US': 'nothing to change' },
  'channels.priority_integer': { 'zh-CN': '优先级必须是整数！', 'en-US': 'priority must be a whole number' },
  'channels.weight_integer': { 'zh-CN': '权重必须是非负整数！', 'en-US': 'weight must be a whole number, 0 or more' },

  // Tests, balances, model lists; a failure is followed by what the relay or the upstream said, as it said it.
  'channels.test_all_started': {
    'zh-CN': '已在后台开始测试所有渠道，请稍后刷新查看结果',
    'en-US': 'testing all channels in the background; refresh to see the results',
  },
  'channels.balance_all_started': {
    'zh-CN': '已在后台开始更新所有已启用渠道的余额',
    'en-US': 'updating the balances of all enabled channels in the background',
  },
  'channels.test_failed': { 'zh-CN': '测试失败', 'en-US': 'test failed' },
  'channels.test_failed_status': { 'zh-CN': '测试失败（状态码 {status}）', 'en-US': 'test failed (status {status})' },
  'channels.test_slow': { 'zh-CN': '响应时间 {time} 秒，超过了阈值 {threshold} 秒', 'en-US': 'response time {time} s exceeds the threshold of {threshold} s' },
  'channels.balance_failed': { 'zh-CN': '余额更新失败', 'en-US': 'balance update failed' },
  'channels.balance_missing': { 'zh-CN': '上游没有返回余额', 'en-US': 'the upstream did not report a balance' },
  'models.fetch_failed': { 'zh-CN': '获取模型列表失败', 'en-US': 'fetching the model list failed' },
  'models.fetch_refused': { 'zh-CN': '上游拒绝返回模型列表（状态码 {status}）', 'en-US': 'the upstream refused the model list (status {status})' },
  'channels.relay_error': { 'zh-CN': '转发服务出错', 'en-US': 'relay' },
  'channels.relay_no_answer': { 'zh-CN': '转发服务没有响应，请稍后再试', 'en-US': 'relay: the relay did not answer; try again later' },

  // Stored keys and channels with many keys.
  'channel_key.unreadable': { 'zh-CN': 'key：已保存的密钥无法读取，请重新填写密钥', 'en-US': 'key: the stored key cannot be read; enter the key again' },
  'multi_key.single_key': { 'zh-CN': 'key_index：该渠道只有一个密钥', 'en-US': 'key_index: this channel has one key' },
  'multi_key.index_range': {
    'zh-CN': 'key_index：该渠道共有 {size} 个密钥（序号 0 到 {last}）',
    'en-US': 'key_index: the channel has {size} keys (0 to {last})',
  },
  'multi_key.index_required': { 'zh-CN': 'key_index 不能为空', 'en-US': 'key_index is required' },
  'multi_key.not_multi': { 'zh-CN': 'channel_id：渠道 {id} 只有一个密钥，不是多密钥渠道', 'en-US': 'channel_id: channel {id} has one key, not many' },
  'multi_key.last_live_key': {
    'zh-CN': 'key_index：不能禁用最后一个启用中的密钥，请改为禁用渠道',
    'en-US': 'key_index: the last live key cannot be disabled; disable the channel instead',
  },
  'multi_key.all_disabled': {
    'zh-CN': 'channel_id：所有密钥均已禁用，请先启用一个密钥，或删除该渠道',
    'en-US': 'channel_id: every key is disabled; enable one first, or delete the channel',
  },
} as const satisfies Catalogue;
