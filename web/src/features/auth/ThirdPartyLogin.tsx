import type { ReactNode } from 'react';

/** Third-party login buttons by the status flags (filled in with the auth screens). */
export function ThirdPartyLogin(_props: { divider?: ReactNode }) {
  return null;
}
