import { optionDefinitions } from '@aigw/contracts';
import {
  addRow,
  changedMaps,
  checkNewName,
  deleteRow,
  filterRows,
  invalidFields,
  isNotNumber,
  mapsFromOptions,
  mapsFromRows,
  rowsFromMaps,
  updateRow,
  type PricingMaps,
  type PricingRow,
} from '../src/features/settings/operation/pricing-rows';

const maps: PricingMaps = {
  ModelPrice: { 'dall-e-3': 0.04, 'gpt-4-gizmo-*': 0.1 },
  ModelRatio: { 'gpt-4o': 1.25, 'gpt-4o-mini': 0.075 },
  CompletionRatio: { 'gpt-4o': 4, 'gpt-4-gizmo-*': 2 },
};
const row = (name: string, price = '', ratio = '', completionRatio = ''): PricingRow => ({ name, price, ratio, completionRatio });

describe('pricing rows', () => {
  it('builds one row per model from the three maps, in order of first appearance', () => {
    expect(rowsFromMaps(maps)).toEqual([
      row('dall-e-3', '0.04'),
      row('gpt-4-gizmo-*', '0.1', '', '2'),
      row('gpt-4o', '', '1.25', '4'),
      row('gpt-4o-mini', '', '0.075'),
    ]);
  });

  it('writes the same maps back from unchanged rows, so nothing counts as changed', () => {
    const rows = rowsFromMaps(maps);
    expect(mapsFromRows(rows)).toEqual(maps);
    expect(changedMaps(mapsFromRows(rows), maps)).toEqual([]);
  });

  it('reads the stored options, or the contracts defaults when a row is missing', () => {
    const read = mapsFromOptions({ ModelPrice: '{"a":1}', ModelRatio: '{"b":2}' });
    expect(read.ModelPrice).toEqual({ a: 1 });
    expect(read.ModelRatio).toEqual({ b: 2 });
    expect(read.CompletionRatio).toEqual(optionDefinitions.CompletionRatio.default);
  });

  it('tells numbers from non-numbers; empty means not set', () => {
    expect(['', ' ', '1', '0.5', '.5', '2.', '1e3', '-1'].map(isNotNumber)).toEqual([false, false, false, false, false, false, false, false]);
    expect(['abc', '1.2.3', '1,5', '0x10', 'NaN', 'Infinity'].map(isNotNumber)).toEqual([true, true, true, true, true, true]);
    expect(invalidFields(row('m', 'x', '', '2y'))).toEqual(['price', 'completionRatio']);
  });

  it('clears and locks the ratios of a row with a fixed price', () => {
    let rows = [row('gpt-4o', '', '1.25', '4'), row('other', '', '1')];
    rows = updateRow(rows, 'gpt-4o', 'price', '0.02');
    expect(rows[0]).toEqual(row('gpt-4o', '0.02'));
    expect(rows[1]).toEqual(row('other', '', '1'));
    // Disabled while the price is set.
    expect(updateRow(rows, 'gpt-4o', 'ratio', '3')[0]).toEqual(row('gpt-4o', '0.02'));
    // Once the price is removed the ratios can be set again.
    rows = updateRow(rows, 'gpt-4o', 'price', '');
    expect(updateRow(rows, 'gpt-4o', 'ratio', '3')[0]).toEqual(row('gpt-4o', '', '3'));
  });

  it('keeps a typed non-number so it can be shown as one', () => {
    expect(updateRow([row('m', '', '1')], 'm', 'ratio', '1a')[0]!.ratio).toBe('1a');
  });

  it('adds a model at the top: name required and unique, values numbers', () => {
    const rows = [row('gpt-4o', '', '1.25')];
    expect(checkNewName(rows, '  ')).toBe('required');
    expect(checkNewName(rows, 'gpt-4o')).toBe('duplicate');
    expect(checkNewName(rows, ' gpt-4o ')).toBe('duplicate');
    expect(checkNewName(rows, 'gpt-4.1')).toBeUndefined();
    expect(addRow(rows, row(''))).toEqual({ ok: false, problem: 'required' });
    expect(addRow(rows, row('gpt-4o', '1'))).toEqual({ ok: false, problem: 'duplicate' });
    expect(addRow(rows, row('new', '', 'abc'))).toEqual({ ok: false, problem: 'notNumber' });
    expect(addRow(rows, row(' new ', '', '2', '3'))).toEqual({ ok: true, rows: [row('new', '', '2', '3'), ...rows] });
    expect(addRow(rows, row('img', '0.1', '2', '3'))).toEqual({ ok: true, rows: [row('img', '0.1'), ...rows] });
  });

  it('deletes and searches rows', () => {
    const rows = rowsFromMaps(maps);
    expect(deleteRow(rows, 'gpt-4o').map((r) => r.name)).toEqual(['dall-e-3', 'gpt-4-gizmo-*', 'gpt-4o-mini']);
    expect(filterRows(rows, ' GPT-4O ').map((r) => r.name)).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(filterRows(rows, '')).toHaveLength(4);
  });

  it('reports only the maps that changed, whatever their key order', () => {
    const reordered: PricingMaps = { ...maps, ModelRatio: { 'gpt-4o-mini': 0.075, 'gpt-4o': 1.25 } };
    expect(changedMaps(reordered, maps)).toEqual([]);
    const rows = updateRow(rowsFromMaps(maps), 'gpt-4o-mini', 'price', '0.01');
    expect(changedMaps(mapsFromRows(rows), maps)).toEqual([
      { key: 'ModelPrice', value: JSON.stringify({ 'dall-e-3': 0.04, 'gpt-4-gizmo-*': 0.1, 'gpt-4o-mini': 0.01 }) },
      { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4o': 1.25 }) },
    ]);
  });
});
