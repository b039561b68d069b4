import { useEffect } from 'react';
import { useEnabledTokenQuery } from '../tokens/api';
import { useTokenKeys } from '../tokens/use-token-keys';

/**
 * The whole key of the user's first enabled token, which chat clients get filled into their
 * link: null when none is enabled, undefined while it loads (or when `skip`, or when the server
 * refused the reveal: its message is shown).
 */
export function useEnabledTokenKey(skip: boolean): string | null | undefined {
  const { data: token } = useEnabledTokenQuery(undefined, { skip });
  const { keys, fullKey } = useTokenKeys();
  useEffect(() => {
    if (token) void fullKey(token.id);
  }, [token, fullKey]);
  if (token === null) return null;
  return token ? keys.get(token.id) : undefined;
}
