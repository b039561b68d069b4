import { useCallback, useRef, useState } from 'react';
import { REVEAL_BATCH_MAX, useRevealTokenKeyMutation, useRevealTokenKeysMutation } from './api';

/**
 * Whole token keys, fetched on demand (lists carry masked keys) and kept for the life of the
 * page, so viewing, copying and chatting with one token cost the server one reveal (reveals are
 * rate-limited per user).
 */
export function useTokenKeys() {
  const [reveal] = useRevealTokenKeyMutation();
  const [revealBatch] = useRevealTokenKeysMutation();
  const [keys, setKeys] = useState<ReadonlyMap<number, string>>(new Map());
  const known = useRef(new Map<number, string>());

  const remember = useCallback((revealed: ReadonlyArray<{ id: number; key: string }>) => {
    for (const { id, key } of revealed) known.current.set(id, key);
    setKeys(new Map(known.current));
  }, []);

  /** The whole key, or null when the server refused (its message is already shown). */
  const fullKey = useCallback(
    async (id: number): Promise<string | null> => {
      const cached = known.current.get(id);
      if (cached) return cached;
      const key = await reveal(id)
        .unwrap()
        .catch(() => null);
      if (key) remember([{ id, key }]);
      return key;
    },
    [reveal, remember],
  );

  /**
   * The whole keys of `ids` in their order, or null when the server refused (its message is
   * already shown). Keys not known yet are asked for in batches of a page, each one reveal, so
   * copying a large selection does not run into the per-minute limit.
   */
  const fullKeys = useCallback(
    async (ids: readonly number[]): Promise<string[] | null> => {
      const missing = [...new Set(ids)].filter((id) => !known.current.has(id));
      // One batch at a time: a refused batch (rate limit, a token deleted meanwhile) stops the copy.
      for (let start = 0; start < missing.length; start += REVEAL_BATCH_MAX) {
        const revealed = await revealBatch(missing.slice(start, start + REVEAL_BATCH_MAX))
          .unwrap()
          .catch(() => null);
        if (!revealed) return null;
        remember(revealed);
      }
      const whole = ids.map((id) => known.current.get(id));
      return whole.every((key): key is string => key !== undefined) ? whole : null;
    },
    [revealBatch, remember],
  );

  return { keys, fullKey, fullKeys };
}
