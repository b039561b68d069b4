import type { Catalogue } from './catalogue.js';

/** What the channels service's routes say: channels, their keys, models. */
export const channelsMessages = {
  'channels.select_to_delete': { 'zh-CN': '请先选择要删除的通道！', 'en-US': 'select the channels to delete first' },
  'channels.select_to_tag': { 'zh-CN': '请先选择要设置标签的渠道！', 'en-US': 'select the channels to tag first' },
  'channels.model_mapping_json': { 'zh-CN': '模型映射必须是合法的 JSON 格式！', 'en-US': 'model mapping must be a JSON object' },
} as const satisfies Catalogue;
