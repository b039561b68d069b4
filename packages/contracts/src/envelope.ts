import { z } from 'zod';
import { msg } from './messages/index.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './paging.js';

/** Every console API answer: `{success, message, data}` (HTTP 200 for business failures). */
export const envelopeSchema = <T extends z.ZodType>(data: T) => z.object({ success: z.boolean(), message: z.string(), data: data.optional() });

export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

/** A page of rows as the console's tables expect it. `page` is 1-based in answers. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), page: z.number().int(), page_size: z.number().int() });

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/**
 * `p` and `page_size` from the query string. The console sends p=0 on first load and 1-based
 * pages afterwards; both 0 and 1 mean the first page.
 */
export const pageQuerySchema = z.object({
  p: z.coerce
    .number()
    .int()
    .min(0)
    .default(1)
    .transform((p) => Math.max(1, p)),
  page_size: z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

/** A row id in a path, query or body: a positive 32-bit integer (the columns are 32-bit). */
export const idSchema = z.coerce
  .number()
  .int(msg('platform.id_integer'))
  .positive(msg('platform.id_positive'))
  .max(2_147_483_647, msg('platform.id_too_large'));
