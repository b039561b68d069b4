import type { PricingRow } from '@aigw/contracts';

/**
 * Prices as docs/product.md section 10 states them: per 1M tokens, input = model ratio x 2 x
 * group ratio dollars, output = input x completion ratio; fixed-price models cost model price x
 * group ratio per call.
 */
export type ModelPrice = { kind: 'tokens'; inputPerMillion: number; outputPerMillion: number } | { kind: 'call'; perCall: number };

export function modelPrice(row: PricingRow, groupRatio: number): ModelPrice {
  if (row.quota_type === 1) return { kind: 'call', perCall: row.model_price * groupRatio };
  const inputPerMillion = row.model_ratio * 2 * groupRatio;
  return { kind: 'tokens', inputPerMillion, outputPerMillion: inputPerMillion * row.completion_ratio };
}

/** Dollars with as many decimals as small prices need (at most 6), no trailing zeros. */
export function formatDollars(value: number): string {
  const fixed = value.toFixed(value !== 0 && Math.abs(value) < 0.01 ? 6 : 4);
  return `$${fixed.replace(/\.?0+$/, '')}`;
}

/** The group-ratio colours (docs/product.md section 10): over 5 red, over 3 orange, over 1 blue, else green. */
export function groupRatioColor(ratio: number): string {
  if (ratio > 5) return 'red';
  if (ratio > 3) return 'orange';
  if (ratio > 1) return 'blue';
  return 'green';
}
