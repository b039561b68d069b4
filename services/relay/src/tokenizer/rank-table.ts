/**
 * A BPE rank table (a token's bytes -> its rank) in four typed arrays. js-tiktoken keeps it as a
 * Map of 100,000 (cl100k) or 200,000 (o200k) strings, the bytes joined by commas ("72,101"), and
 * those strings stay in the old generation for the life of the process, where every full
 * collection marks each of them again (about 4 ms of the pause per 100,000 here). These arrays are
 * four objects the collector never looks inside, a third of the memory, and built in a third of
 * the time (docs/architecture.md section 5).
 *
 * The library only ever calls `get` with a piece's bytes joined by commas, so that is the key this
 * takes: it reads the bytes back out of the key and finds them by hash (FNV-1a, linear probing).
 */
export class RankTable {
  /** Distinct byte sequences held. */
  readonly size: number;
  /** Every token's bytes, one after another: token i's are bytes[ends[i - 1] ?? 0 .. ends[i]). */
  private readonly bytes: Uint8Array;
  private readonly ends: Uint32Array;
  private readonly ranks: Uint32Array;
  /** Open addressing: a token's index + 1, 0 where empty; a power of two, at most half full. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** The bytes of the key being looked up (grown for a longer piece). */
  private key = new Uint8Array(64);

  /** `text`: the rank file's lines, each `! <first rank> <base64 token> <base64 token> ...` (consecutive ranks). */
  constructor(text: string) {
    let spaces = 0;
    for (let at = text.indexOf(' '); at >= 0; at = text.indexOf(' ', at + 1)) spaces++;
    // Base64 is four characters for three bytes, and a line's tokens are separated by spaces: bounds.
    const bytes = new Uint8Array(Math.ceil((text.length * 3) / 4));
    // Decoded through a Buffer over the same memory; read only as the Uint8Array (one type of array
    // in the lookups, so they stay monomorphic).
    const writer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    const ends = new Uint32Array(spaces);
    const ranks = new Uint32Array(spaces);
    this.slots = new Int32Array(2 ** Math.ceil(Math.log2(Math.max(2, spaces * 2))));
    this.mask = this.slots.length - 1;
    // Full-size while building (find reads them), trimmed to what was used at the end.
    this.bytes = bytes;
    this.ends = ends;

    let count = 0;
    let used = 0;
    for (let line = 0; line < text.length;) {
      let end = text.indexOf('\n', line);
      if (end < 0) end = text.length;
      const rankStart = text.indexOf(' ', line) + 1;
      let token = text.indexOf(' ', rankStart) + 1;
      let rank = Number.parseInt(text.slice(rankStart, token - 1), 10);
      while (token > 0 && token < end) {
        let tokenEnd = text.indexOf(' ', token);
        if (tokenEnd < 0 || tokenEnd > end) tokenEnd = end;
        const length = writer.write(text.slice(token, tokenEnd), used, 'base64');
        const tokenHash = hash(bytes, used, used + length);
        const existing = this.find(tokenHash, bytes, used, length);
        if (existing >= 0) {
          ranks[existing] = rank; // as the Map it replaces: a later line's rank wins
        } else {
          ends[count] = used + length;
          ranks[count] = rank;
          this.slots[this.emptySlot(tokenHash)] = count + 1;
          used += length;
          count++;
        }
        rank++;
        token = tokenEnd + 1;
      }
      line = end + 1;
    }
    this.size = count;
    this.ranks = ranks.slice(0, count);
    this.ends = ends.slice(0, count);
    this.bytes = bytes.slice(0, used);
  }

  /** The rank of the bytes `key` lists joined by commas ("72,101"), as js-tiktoken asks. */
  get(key: string): number | undefined {
    let length = 0;
    let value = 0;
    let keyHash = FNV_OFFSET;
    for (let index = 0; index < key.length; index++) {
      const code = key.charCodeAt(index);
      if (code !== COMMA) {
        value = value * 10 + code - ZERO;
        continue;
      }
      keyHash = imul(keyHash ^ value, FNV_PRIME);
      length = this.push(length, value);
      value = 0;
    }
    if (key.length > 0) {
      keyHash = imul(keyHash ^ value, FNV_PRIME);
      length = this.push(length, value);
    }
    const found = this.find(keyHash >>> 0, this.key, 0, length);
    return found < 0 ? undefined : this.ranks[found];
  }

  private push(length: number, value: number): number {
    if (length === this.key.length) {
      const longer = new Uint8Array(length * 2);
      longer.set(this.key);
      this.key = longer;
    }
    this.key[length] = value;
    return length + 1;
  }

  /** The index of the token whose bytes are source[start..start + length) (their hash: `bytesHash`), or -1. */
  private find(bytesHash: number, source: Uint8Array, start: number, length: number): number {
    for (let slot = bytesHash & this.mask; this.slots[slot] !== 0; slot = (slot + 1) & this.mask) {
      const index = this.slots[slot]! - 1;
      const tokenStart = index === 0 ? 0 : this.ends[index - 1]!;
      if (this.ends[index]! - tokenStart === length && equal(this.bytes, tokenStart, source, start, length)) return index;
    }
    return -1;
  }

  /** The first empty slot for bytes of this hash. */
  private emptySlot(bytesHash: number): number {
    let slot = bytesHash & this.mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
    return slot;
  }
}

const COMMA = 44;
const ZERO = 48;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Looked up once: a global read per byte is slow in a vm context (jest runs the tests in one). */
const imul = Math.imul;

function hash(source: Uint8Array, start: number, end: number): number {
  let value = FNV_OFFSET;
  for (let index = start; index < end; index++) value = imul(value ^ source[index]!, FNV_PRIME);
  return value >>> 0;
}

function equal(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let index = 0; index < length; index++) if (a[aStart + index] !== b[bStart + index]) return false;
  return true;
}
