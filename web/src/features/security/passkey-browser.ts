import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { feedback } from '../../app/feedback';

/**
 * The browser half of passkey ceremonies (@simplewebauthn/browser): the server's options in,
 * the authenticator's answer out as JSON for the finish call. A cancelled or failed ceremony is
 * shown as a toast and gives null.
 */
export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

export async function createPasskey(options: Record<string, unknown>): Promise<Record<string, unknown> | null> {
  try {
    return (await startRegistration({ optionsJSON: options as unknown as Parameters<typeof startRegistration>[0]['optionsJSON'] })) as unknown as Record<
      string,
      unknown
    >;
  } catch (error) {
    feedback.error(error instanceof Error ? error.message : String(error));
    return null;
  }
}

export async function assertPasskey(options: Record<string, unknown>): Promise<Record<string, unknown> | null> {
  try {
    return (await startAuthentication({ optionsJSON: options as unknown as Parameters<typeof startAuthentication>[0]['optionsJSON'] })) as unknown as Record<
      string,
      unknown
    >;
  } catch (error) {
    feedback.error(error instanceof Error ? error.message : String(error));
    return null;
  }
}
