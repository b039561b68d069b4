import { z } from 'zod';
import { idSchema, localeFromAcceptLanguage, msg, tagNameSchema, updateChannelBodySchema } from '@aigw/contracts';

export const idParams = z.object({ id: idSchema });

export const updateBodySchema = updateChannelBodySchema;

export const copyQuery = z.object({
  /** Absent: the copy suffix of the admin's language (`_复制`, `_copy`: copySuffix). */
  suffix: z.string().max(32).optional(),
  reset_balance: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
});

/** The name suffix of a channel copy when the admin names none: in the language their console sends. */
export function copySuffix(acceptLanguage: string | undefined): string {
  // not a console message: part of the copy's name, stored with it.
  return localeFromAcceptLanguage(acceptLanguage) === 'en-US' ? '_copy' : '_复制';
}

export const tagBody = z.object({ tag: tagNameSchema });

const selection = (message: string) => z.array(idSchema, { error: message }).min(1, message).max(1000);

export const batchDeleteBody = z.object({ ids: selection(msg('channels.select_to_delete')) });
export const batchTagBody = z.object({ ids: selection(msg('channels.select_to_tag')), tag: tagNameSchema });

export const testQuery = z.object({
  model: z.string().trim().max(128).default(''),
  /** Which key of a channel with many keys to test (from 0); absent: its first live one. */
  key_index: z.coerce.number().int().min(0).optional(),
});
