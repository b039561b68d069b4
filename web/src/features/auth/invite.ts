/**
 * The invite code (`?aff=` of an invite link). Remembered in browser storage under the
 * established console's key 'aff', so a visitor who opens the invite link and then registers
 * through a third-party login (a new window and a round trip to the provider) keeps it.
 */
const AFF_KEY = 'aff';

export function rememberInviteCode(code: string | null): void {
  if (!code) return;
  try {
    window.localStorage.setItem(AFF_KEY, code);
  } catch {
    // Private mode or a full store: the code still goes with this page's requests.
  }
}

/** The code from the current link, else the remembered one, else undefined. */
export function inviteCode(fromQuery?: string | null): string | undefined {
  if (fromQuery) return fromQuery;
  try {
    return window.localStorage.getItem(AFF_KEY) || undefined;
  } catch {
    return undefined;
  }
}
