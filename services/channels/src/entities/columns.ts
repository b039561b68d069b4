import type { ValueTransformer } from 'typeorm';

/** bigint columns arrive as strings from PostgreSQL; every value here fits a safe integer. */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
