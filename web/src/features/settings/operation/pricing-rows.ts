import { decodeOptionValue, optionDefinitions } from '@aigw/contracts';
import type { OptionChange } from '../option-values';

/**
 * The state of the visual pricing editor, kept pure so it is tested on its own: one row per
 * model built from the ModelPrice, ModelRatio and CompletionRatio maps, edited as text (so a
 * non-number can be shown as such), and written back as the three maps.
 */

/** A row of the model pricing editor (docs/product.md section 5); values are the texts typed ('' = not set). */
export interface PricingRow {
  name: string;
  /** Fixed USD price per call; when set the model is billed per call and has no ratios. */
  price: string;
  ratio: string;
  completionRatio: string;
}

export type PricingField = 'price' | 'ratio' | 'completionRatio';
export const pricingFields: readonly PricingField[] = ['price', 'ratio', 'completionRatio'];

export const pricingKeys = ['ModelPrice', 'ModelRatio', 'CompletionRatio'] as const;
export type PricingKey = (typeof pricingKeys)[number];
export type PricingMaps = Record<PricingKey, Record<string, number>>;

const fieldOfKey: Record<PricingKey, PricingField> = { ModelPrice: 'price', ModelRatio: 'ratio', CompletionRatio: 'completionRatio' };

/** The three maps from the stored options (the contracts' default when the server has no row). */
export function mapsFromOptions(stored: Partial<Record<string, string>> | undefined): PricingMaps {
  const read = (key: PricingKey): Record<string, number> => {
    const raw = stored?.[key];
    if (raw === undefined) return { ...optionDefinitions[key].default };
    const decoded = decodeOptionValue(key, raw);
    return decoded.ok ? decoded.value : {};
  };
  return { ModelPrice: read('ModelPrice'), ModelRatio: read('ModelRatio'), CompletionRatio: read('CompletionRatio') };
}

/** One row per model named in any map, in order of first appearance. */
export function rowsFromMaps(maps: PricingMaps): PricingRow[] {
  const rows = new Map<string, PricingRow>();
  for (const key of pricingKeys) {
    for (const [name, value] of Object.entries(maps[key])) {
      const row = rows.get(name) ?? { name, price: '', ratio: '', completionRatio: '' };
      row[fieldOfKey[key]] = String(value);
      rows.set(name, row);
    }
  }
  return [...rows.values()];
}

const numberPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** Whether a typed value is not a number (empty means "not set", which is fine). */
export function isNotNumber(text: string): boolean {
  const trimmed = text.trim();
  return trimmed !== '' && !numberPattern.test(trimmed);
}

/** The fields of a row that hold something other than a number. */
export function invalidFields(row: PricingRow): PricingField[] {
  return pricingFields.filter((field) => isNotNumber(row[field]));
}

export function hasFixedPrice(row: Pick<PricingRow, 'price'>): boolean {
  return row.price.trim() !== '';
}

/**
 * A row with one field changed. A fixed price clears the row's ratios (they are disabled while
 * a price is set, since a per-call price ignores them); a ratio cannot be set beside a price.
 */
export function updateRow(rows: readonly PricingRow[], name: string, field: PricingField, value: string): PricingRow[] {
  return rows.map((row) => {
    if (row.name !== name) return row;
    if (field !== 'price' && hasFixedPrice(row)) return row;
    const next = { ...row, [field]: value };
    return field === 'price' && hasFixedPrice(next) ? { ...next, ratio: '', completionRatio: '' } : next;
  });
}

export type NameProblem = 'required' | 'duplicate';

/** Why a new model name cannot be added, if it cannot. */
export function checkNewName(rows: readonly PricingRow[], name: string): NameProblem | undefined {
  const trimmed = name.trim();
  if (!trimmed) return 'required';
  return rows.some((row) => row.name === trimmed) ? 'duplicate' : undefined;
}

export type AddResult = { ok: true; rows: PricingRow[] } | { ok: false; problem: NameProblem | 'notNumber' };

/** Adds a model at the top (where the user sees it), with the same rules as editing. */
export function addRow(rows: readonly PricingRow[], draft: PricingRow): AddResult {
  const problem = checkNewName(rows, draft.name);
  if (problem) return { ok: false, problem };
  const row: PricingRow = { ...draft, name: draft.name.trim() };
  if (invalidFields(row).length > 0) return { ok: false, problem: 'notNumber' };
  return { ok: true, rows: [hasFixedPrice(row) ? { ...row, ratio: '', completionRatio: '' } : row, ...rows] };
}

export function deleteRow(rows: readonly PricingRow[], name: string): PricingRow[] {
  return rows.filter((row) => row.name !== name);
}

/** Rows whose name contains the search text, ignoring case. */
export function filterRows(rows: readonly PricingRow[], search: string): PricingRow[] {
  const needle = search.trim().toLowerCase();
  return needle ? rows.filter((row) => row.name.toLowerCase().includes(needle)) : [...rows];
}

/** The three maps written back from the rows; unset values are left out. Rows must be valid. */
export function mapsFromRows(rows: readonly PricingRow[]): PricingMaps {
  const maps: PricingMaps = { ModelPrice: {}, ModelRatio: {}, CompletionRatio: {} };
  for (const row of rows) {
    for (const key of pricingKeys) {
      const text = row[fieldOfKey[key]].trim();
      if (text !== '') maps[key][row.name] = Number(text);
    }
  }
  return maps;
}

function sameMap(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

/** The option saves for the maps that differ from the stored ones (key order does not count). */
export function changedMaps(maps: PricingMaps, stored: PricingMaps): OptionChange[] {
  return pricingKeys.filter((key) => !sameMap(maps[key], stored[key])).map((key) => ({ key, value: JSON.stringify(maps[key]) }));
}
