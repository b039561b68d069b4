/**
 * Prompt tokens of an image part, as OpenAI bills vision input (docs/compatibility.md section 3.6):
 * - `detail: "low"`: 85;
 * - otherwise, when the size is known: 85 + 170 per 512-px tile after OpenAI's scaling (fit in
 *   2048×2048, then the short side down to 768);
 * - otherwise a flat 255.
 * The size is known only for PNG and GIF data URLs (read from the header bytes). Remote URLs are
 * never fetched (the relay does no I/O to estimate), and JPEG/WebP headers are not parsed: they
 * get the flat figure. This is an estimate for the reservation; the upstream's usage settles.
 */
export const LOW_DETAIL_IMAGE_TOKENS = 85;
export const UNKNOWN_SIZE_IMAGE_TOKENS = 255;
const TILE_TOKENS = 170;

export interface ImageSize {
  width: number;
  height: number;
}

export function imageTokens(detail: string | undefined, size: ImageSize | null): number {
  if (detail === 'low') return LOW_DETAIL_IMAGE_TOKENS;
  if (!size) return UNKNOWN_SIZE_IMAGE_TOKENS;
  return LOW_DETAIL_IMAGE_TOKENS + TILE_TOKENS * highDetailTiles(size);
}

function highDetailTiles({ width, height }: ImageSize): number {
  let w = width;
  let h = height;
  if (w > 2048 || h > 2048) {
    const scale = 2048 / Math.max(w, h);
    w = Math.floor(w * scale);
    h = Math.floor(h * scale);
  }
  if (Math.min(w, h) > 768) {
    const scale = 768 / Math.min(w, h);
    w = Math.floor(w * scale);
    h = Math.floor(h * scale);
  }
  return Math.max(1, Math.ceil(w / 512)) * Math.max(1, Math.ceil(h / 512));
}

/** Width and height from a PNG or GIF data URL's first bytes; null for anything else. */
export function imageSizeFromDataUrl(url: string): ImageSize | null {
  if (!url.startsWith('data:')) return null;
  const comma = url.indexOf(',');
  if (comma === -1 || !url.slice(0, comma).endsWith(';base64')) return null;
  // 32 base64 characters decode to the 24 bytes that hold both headers.
  const head = Buffer.from(url.slice(comma + 1, comma + 33), 'base64');
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47 && head.toString('latin1', 12, 16) === 'IHDR') {
    return positive(head.readUInt32BE(16), head.readUInt32BE(20));
  }
  if (head.length >= 10 && head.toString('latin1', 0, 4) === 'GIF8') {
    return positive(head.readUInt16LE(6), head.readUInt16LE(8));
  }
  return null;
}

function positive(width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}
