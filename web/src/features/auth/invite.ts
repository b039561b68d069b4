import { readText, storageKeys, write } from '../../lib/storage';

/**
 * The invite code (`?aff=` of an invite link). Remembered in browser storage, so a visitor who
 * opens the invite link and then registers through a third-party login (a new window and a
 * round trip to the provider) keeps it.
 */
export function rememberInviteCode(code: string | null): void {
  if (code) write(storageKeys.inviteCode, code);
}

/** The code from the current link, else the remembered one, else undefined. */
export function inviteCode(fromQuery?: string | null): string | undefined {
  return fromQuery || readText(storageKeys.inviteCode) || undefined;
}
