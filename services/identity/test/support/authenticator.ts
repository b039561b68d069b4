import crypto from 'node:crypto';

/**
 * A software WebAuthn authenticator for tests: an ES256 key per credential, `none` attestation,
 * and assertions signed as a real authenticator signs them (authenticatorData || sha256(clientDataJSON)),
 * so the server's verification (@simplewebauthn/server) runs for real.
 */

type Cbor = number | string | Uint8Array | Cbor[] | Map<number | string, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  if (length < 65536) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

/** Just enough CBOR for attestation objects and COSE keys. */
function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, entry]) => [cbor(key), cbor(entry)])]);
}

const b64url = (data: Uint8Array | string) => Buffer.from(data).toString('base64url');
const sha256 = (data: Uint8Array | string) => crypto.createHash('sha256').update(data).digest();

interface Credential {
  id: Buffer;
  keys: crypto.KeyPairKeyObjectResult;
  userHandle: string;
  counter: number;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: Array<{ id: string }>;
}

export class SoftAuthenticator {
  private readonly credentials: Credential[] = [];

  /** `origin`: where the browser says the ceremony happened. */
  constructor(private readonly origin: string) {}

  private authData(rpId: string, counter: number, attested?: Credential): Buffer {
    const flags = 0x01 | 0x04 | (attested ? 0x40 : 0); // user present, user verified, attested credential data
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const parts: Buffer[] = [sha256(rpId), Buffer.from([flags]), count];
    if (attested) {
      const jwk = attested.keys.publicKey.export({ format: 'jwk' });
      const cose = cbor(
        new Map<number, Cbor>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ]),
      );
      const length = Buffer.alloc(2);
      length.writeUInt16BE(attested.id.length);
      parts.push(Buffer.alloc(16), length, attested.id, cose);
    }
    return Buffer.concat(parts);
  }

  /** The answer of navigator.credentials.create() to registration options. */
  create(options: CreationOptions, origin = this.origin) {
    const credential: Credential = {
      id: crypto.randomBytes(16),
      keys: crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }),
      userHandle: options.user.id,
      counter: 0,
    };
    this.credentials.push(credential);
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false });
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', this.authData(options.rp.id ?? 'localhost', 0, credential)],
      ]),
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** The answer of navigator.credentials.get(): signed with the allowed (or else the first) credential. */
  get(options: RequestOptions, origin = this.origin) {
    const allowed = options.allowCredentials?.map((entry) => entry.id) ?? [];
    const credential = this.credentials.find((entry) => allowed.length === 0 || allowed.includes(b64url(entry.id)));
    if (!credential) throw new Error('no credential for these options');
    credential.counter += 1;
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false });
    const authenticatorData = this.authData(options.rpId ?? 'localhost', credential.counter);
    const signature = crypto.sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.keys.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
