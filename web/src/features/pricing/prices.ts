import { chargeUnitOf, type PricingRow } from '@aigw/contracts';

/** USD per image per unit of ModelRatio, for an image model priced by ratio only (the relay's rule). */
export const USD_PER_IMAGE_RATIO = 0.0025;
/** A transcription billed by duration counts 1,000 prompt tokens per minute of audio. */
export const TOKENS_PER_AUDIO_MINUTE = 1000;

/**
 * Prices as docs/product.md section 10 states them, by the model's unit of charge (chargeUnitOf):
 * - tokens: per 1M tokens, input = model ratio × 2 × group ratio dollars, output = input × completion ratio;
 * - call: a fixed-price model (other than images) costs model price × group ratio per call;
 * - image: per image, model price × group ratio, or, for a model with only a ratio,
 *   0.0025 × model ratio × group ratio (`modelRatio` set then); size and quality multiply it;
 * - characters: speech, whose prompt tokens are the input's characters: the input price per 1M characters;
 * - audioMinute: transcription, 1,000 prompt tokens per minute of audio when billed by duration
 *   (the per-token prices beside it apply when the upstream reports tokens).
 */
export type ModelPrice =
  | { kind: 'tokens'; inputPerMillion: number; outputPerMillion: number }
  | { kind: 'call'; perCall: number }
  | { kind: 'image'; perImage: number; modelRatio: number | null }
  | { kind: 'characters'; perMillionCharacters: number }
  | { kind: 'audioMinute'; perMinute: number; inputPerMillion: number; outputPerMillion: number };

export function modelPrice(row: PricingRow, groupRatio: number): ModelPrice {
  const unit = chargeUnitOf(row.model_name, row.quota_type);
  if (row.quota_type === 1) {
    return unit === 'image'
      ? { kind: 'image', perImage: row.model_price * groupRatio, modelRatio: null }
      : { kind: 'call', perCall: row.model_price * groupRatio };
  }
  const inputPerMillion = row.model_ratio * 2 * groupRatio;
  const outputPerMillion = inputPerMillion * row.completion_ratio;
  switch (unit) {
    case 'image':
      return { kind: 'image', perImage: USD_PER_IMAGE_RATIO * row.model_ratio * groupRatio, modelRatio: row.model_ratio };
    case 'character':
      return { kind: 'characters', perMillionCharacters: inputPerMillion };
    case 'audio_minute':
      return { kind: 'audioMinute', perMinute: (inputPerMillion * TOKENS_PER_AUDIO_MINUTE) / 1_000_000, inputPerMillion, outputPerMillion };
    default:
      return { kind: 'tokens', inputPerMillion, outputPerMillion };
  }
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
