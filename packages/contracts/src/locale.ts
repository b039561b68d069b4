import { z } from 'zod';

/** The languages of the console, of mails and of what the server says. */
export const localeSchema = z.enum(['zh-CN', 'en-US']);
export type Locale = z.infer<typeof localeSchema>;

/** The locale an Accept-Language header asks for (the console sends its chosen language); Chinese by default. */
export function localeFromAcceptLanguage(header: string | undefined): Locale {
  return header?.trim().toLowerCase().startsWith('en') ? 'en-US' : 'zh-CN';
}
