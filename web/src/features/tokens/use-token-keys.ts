import { useCallback, useRef, useState } from 'react';
import { useRevealTokenKeyMutation } from './api';

/**
 * Whole token keys, fetched on demand (lists carry masked keys) and kept for the life of the
 * page, so viewing, copying and chatting with one token cost the server one reveal (reveals are
 * rate-limited per user).
 */
export function useTokenKeys() {
  const [reveal] = useRevealTokenKeyMutation();
  const [keys, setKeys] = useState<ReadonlyMap<number, string>>(new Map());
  const known = useRef(new Map<number, string>());

  /** The whole key, or null when the server refused (its message is already shown). */
  const fullKey = useCallback(async (id: number): Promise<string | null> => {
    const cached = known.current.get(id);
    if (cached) return cached;
    const key = await reveal(id).unwrap().catch(() => null);
    if (key) {
      known.current.set(id, key);
      setKeys(new Map(known.current));
    }
    return key;
  }, [reveal]);

  return { keys, fullKey };
}
