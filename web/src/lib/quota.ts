/** How the server says quota should be shown (from the cached status). */
export interface QuotaDisplay {
  displayInCurrency: boolean;
  quotaPerUnit: number;
}

export const defaultQuotaDisplay: QuotaDisplay = { displayInCurrency: true, quotaPerUnit: 500_000 };

/**
 * Quota as docs/product.md section 1 says: currency (quota / quota-per-unit, two decimals) when
 * currency display is on, else a compact number (k above 10 thousand, M above a million,
 * B above a billion).
 */
export function formatQuota(quota: number, display: QuotaDisplay, digits = 2): string {
  if (display.displayInCurrency) {
    const units = quota / (display.quotaPerUnit > 0 ? display.quotaPerUnit : 1);
    return `$${units.toFixed(digits)}`;
  }
  return compactNumber(quota);
}

export function compactNumber(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e9) return `${trim(value / 1e9)}B`;
  if (magnitude >= 1e6) return `${trim(value / 1e6)}M`;
  if (magnitude >= 1e4) return `${trim(value / 1e3)}k`;
  return String(value);
}

function trim(value: number): string {
  return value.toFixed(1).replace(/\.0$/, '');
}

/** Money units (e.g. dollars) entered in a form, back to integer quota. */
export function unitsToQuota(units: number, display: QuotaDisplay): number {
  return Math.round(units * display.quotaPerUnit);
}
