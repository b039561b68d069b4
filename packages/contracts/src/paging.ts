/**
 * Page sizes of the console's tables. A module without zod: the console's first screen reads
 * the default page size, and importing it from here keeps the schema library out of that load.
 */

/** Page size options of the console's tables; default 10. */
export const PAGE_SIZE_DEFAULT = 10;
export const PAGE_SIZE_MAX = 100;
