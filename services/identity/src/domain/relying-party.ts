import { msg } from '@aigw/contracts';

/**
 * Who we are to a passkey authenticator (the WebAuthn relying party), from the `passkey.*`
 * options with the established product's defaults: the id is `passkey.rp_id` or the host of
 * ServerAddress, the origins are `passkey.origins` or the origin of ServerAddress. Without a
 * ServerAddress the request's own origin stands in. Pure: no database, no Fastify.
 */
export interface RelyingPartySettings {
  rpId: string;
  rpName: string;
  /** Comma-separated. */
  origins: string;
  allowInsecureOrigin: boolean;
  serverAddress: string;
  systemName: string;
}

export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/** Browsers treat these as secure over plain http. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '127.0.0.1' || hostname === '[::1]';
}

function originOf(address: string): URL | null {
  try {
    const url = new URL(address);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/** Throws an Error with a message for the administrator (a catalogue message) when no usable origin is left. */
export function resolveRelyingParty(settings: RelyingPartySettings, requestOrigin: string): RelyingParty {
  const base = originOf(settings.serverAddress) ?? originOf(requestOrigin);
  const listed = settings.origins
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  const candidates = listed.length > 0 ? listed : base ? [base.origin] : [];
  const origins = candidates.filter((origin) => {
    const url = originOf(origin);
    return url !== null && (url.protocol === 'https:' || settings.allowInsecureOrigin || isLoopback(url.hostname));
  });
  const id = settings.rpId || base?.hostname || '';
  if (!id || origins.length === 0) {
    throw new Error(msg('passkey.https_origin_required'));
  }
  return { id, name: settings.rpName || settings.systemName || id, origins };
}
