import { z } from 'zod';
import { createChannelBodySchema, idSchema, pageQuerySchema, updateChannelBodySchema } from '@aigw/contracts';

/** Query flags as the console sends them: `true`/`false` (or 1/0); absent is false. */
const flag = z.enum(['true', 'false', '1', '0']).optional().transform((value) => value === 'true' || value === '1');

export const idParams = z.object({ id: idSchema });

export const listQuery = pageQuerySchema.extend({ id_sort: flag, tag_mode: flag });

export const searchQuery = listQuery.extend({
  keyword: z.string().trim().max(1024).default(''),
  group: z.string().trim().max(64).default(''),
  model: z.string().trim().max(255).default(''),
});

export const updateBodySchema = updateChannelBodySchema;

export const copyQuery = z.object({
  suffix: z.string().max(32).default('_复制'),
  reset_balance: z.enum(['true', 'false']).default('true').transform((value) => value === 'true'),
});

/** Blank inputs mean "no change" in the tag editor; numbers may arrive as text from a form. */
const blankToUndefined = (value: unknown) => {
  if (value === '' || value === null) return undefined;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return value;
};
const optionalInteger = (message: string, min: number) =>
  z.preprocess(blankToUndefined, z.number({ error: message }).int(message).min(min, message).max(1_000_000).optional()).optional();

const isJsonObject = (text: string) => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
};

const tagName = z.string({ error: '标签不能为空！' }).trim().min(1, '标签不能为空！').max(64);

export const tagBody = z.object({ tag: tagName });

/** PUT /api/channel/tag, with the console's messages (docs/product.md section 6, tag operations). */
export const tagEditBody = z.object({
  tag: tagName,
  new_tag: z.string().trim().max(64).nullish().transform((value) => value ?? undefined),
  model_mapping: z.string().trim().max(65536).nullish()
    .refine((value) => !value || isJsonObject(value), '模型映射必须是合法的 JSON 格式！').transform((value) => value || undefined),
  groups: z.string().trim().max(1024).nullish().transform((value) => value || undefined),
  models: z.string().trim().max(65536).nullish().transform((value) => value || undefined),
  priority: optionalInteger('优先级必须是整数！', -999),
  weight: optionalInteger('权重必须是非负整数！', 0),
});

const selection = (message: string) => z.array(idSchema, { error: message }).min(1, message).max(1000);

export const batchDeleteBody = z.object({ ids: selection('请先选择要删除的通道！') });
export const batchTagBody = z.object({ ids: selection('请先选择要设置标签的渠道！'), tag: tagName });

export const testQuery = z.object({ model: z.string().trim().max(128).default('') });

export const fetchModelsBody = z.object({
  type: createChannelBodySchema.shape.type,
  base_url: z.string().trim().max(2048).default(''),
  key: z.string().trim().min(1, 'key is required').max(1_000_000),
  /** The editor's private-network switch; absent: what a new channel would take (AllowPrivateNetworkUpstreams). */
  allow_private_network: createChannelBodySchema.shape.allow_private_network,
});
