import type { TableColumnOptions, ValueTransformer } from 'typeorm';

/** Entity transformer: bigint columns arrive as strings from PostgreSQL; every value we store fits a safe integer. */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

/**
 * Column builders for migrations written with the QueryRunner API (they run on PostgreSQL and
 * SQLite alike). Everything is NOT NULL unless said otherwise; defaults are SQL literals.
 */
export const columns = {
  /** Auto-increment integer primary key `id`. */
  id: (): TableColumnOptions => ({ name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' }),
  integer: (name: string, fallback?: number): TableColumnOptions => ({ name, type: 'integer', isNullable: false, default: fallback }),
  bigint: (name: string, fallback?: number): TableColumnOptions => ({ name, type: 'bigint', isNullable: false, default: fallback }),
  /** varchar(length), default '' unless another SQL literal (or undefined: no default) is given. */
  text: (name: string, length: number, fallback: string | undefined = "''"): TableColumnOptions => ({
    name,
    type: 'varchar',
    length: String(length),
    isNullable: false,
    default: fallback,
  }),
  longText: (name: string): TableColumnOptions => ({ name, type: 'text', isNullable: false, default: "''" }),
  flag: (name: string): TableColumnOptions => ({ name, type: 'boolean', isNullable: false, default: false }),
};
