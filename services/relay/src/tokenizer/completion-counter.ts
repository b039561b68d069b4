import { countText } from './encodings.js';

/** Pending text is counted once it passes this length, at the last safe cut point. */
const FLUSH_LENGTH = 1024;
/** Beyond this, text without a safe cut point (long runs with no space, e.g. CJK) is cut anyway. */
const FORCED_CUT_LENGTH = 4096;

/**
 * Counts the tokens of a streamed answer without keeping it (complaint 9, docs/compatibility.md
 * section 7: a long stream must not be buffered whole). Text is added as it arrives; once more than
 * 1 KiB is pending, the part before the last "non-space, then space" boundary is counted and
 * dropped. Both the cl100k and o200k pre-tokenizers always split right there (a space only ever
 * starts a piece, or joins a run of whitespace, neither of which can begin at a non-space
 * character), so the sum equals counting the whole text: the count is exact for any text with
 * spaces.
 *
 * Tolerance: a run of 4 KiB without such a boundary (CJK prose, base64) is cut where it stands;
 * each such cut may shift the count by a token or two (about 0.05% of the tokens in that run).
 * Memory per stream stays below 4 KiB of text plus the last added piece.
 */
export class CompletionCounter {
  private counted = 0;
  private pending = '';

  constructor(private readonly model: string) {}

  add(text: string): void {
    if (text === '') return;
    this.pending += text;
    if (this.pending.length <= FLUSH_LENGTH) return;
    const cut = safeCut(this.pending);
    if (cut > 0) this.flushBefore(cut);
    else if (this.pending.length > FORCED_CUT_LENGTH) this.flushBefore(this.pending.length);
  }

  /** Characters held back, not yet counted (at most 4 KiB plus the last added piece). */
  get bufferedLength(): number {
    return this.pending.length;
  }

  /**
   * At least `total()`, without counting: a token is at least one UTF-8 byte, and a UTF-16 unit
   * at most three of them. What a meter compares against on every chunk.
   */
  upperBound(): number {
    return this.counted + 3 * this.pending.length;
  }

  /**
   * Tokens of everything added so far. What is pending up to its last safe cut is counted for good
   * first, so a meter that asks after every chunk counts each piece of text once, not the whole
   * pending text again each time (what is left, a word or so, is counted on every call).
   */
  total(): number {
    const cut = safeCut(this.pending);
    if (cut > 0) this.flushBefore(cut);
    return this.counted + countText(this.pending, this.model);
  }

  private flushBefore(index: number): void {
    this.counted += countText(this.pending.slice(0, index), this.model);
    this.pending = this.pending.slice(index);
  }
}

/** The last index of a space preceded by a non-whitespace character, or -1. */
function safeCut(text: string): number {
  for (let index = text.lastIndexOf(' '); index > 0; index = text.lastIndexOf(' ', index - 1)) {
    if (!/\s/.test(text[index - 1]!)) return index;
  }
  return -1;
}
