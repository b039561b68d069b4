import type { FastifyRequest } from 'fastify';
import type { DataSource } from 'typeorm';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { msg, type PasskeyView, type WebAuthnResponse } from '@aigw/contracts';
import { isUniqueViolation, UserError } from '@aigw/platform';
import type { OptionStore } from './options-store.js';
import { PasskeyEntity } from './entities/passkey.entity.js';
import { resolveRelyingParty, type RelyingParty } from './domain/relying-party.js';

/** Passkeys one user may keep. */
export const PASSKEYS_MAX = 10;

/**
 * Passkeys (WebAuthn) with @simplewebauthn/server: registration of a signed-in user's
 * credential, and assertions for sign-in (discoverable: no username first) and step-up (the
 * user's own credentials). The caller keeps each challenge (bound to the browser or session,
 * single use) between the two halves of a ceremony.
 */
export interface PasskeyService {
  /** The relying party for this request; refused when passkeys are off or no usable origin is configured. */
  relyingParty(request: FastifyRequest): RelyingParty;
  list(userId: number): Promise<PasskeyView[]>;
  count(userId: number): Promise<number>;
  registrationOptions(rp: RelyingParty, user: { id: number; username: string; displayName: string }): Promise<{ options: object; challenge: string }>;
  register(rp: RelyingParty, userId: number, response: WebAuthnResponse, challenge: string, name: string): Promise<PasskeyView>;
  /** Options for an assertion: any discoverable credential (sign-in), or the user's own (step-up). */
  authenticationOptions(rp: RelyingParty, userId?: number): Promise<{ options: object; challenge: string }>;
  /** Verifies an assertion; returns the credential's owner. `userId` restricts it to that user's credentials. */
  authenticate(rp: RelyingParty, response: WebAuthnResponse, challenge: string, userId?: number): Promise<number>;
  remove(userId: number, id?: number): Promise<number>;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

function toView(row: PasskeyEntity): PasskeyView {
  return { id: row.id, name: row.name, created_at: seconds(row.created_at)!, last_used_at: seconds(row.last_used_at), backed_up: row.backed_up };
}

const transportsOf = (row: PasskeyEntity): string[] => {
  try {
    const parsed = JSON.parse(row.transports) as unknown;
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  }
};

/** The library's refusal, in words the console can show (it names what did not match). */
function refused(error: unknown): UserError {
  const reason = error instanceof Error ? error.message : String(error);
  return new UserError(msg('passkey.verification_failed_because', { reason }));
}

export function createPasskeyService(db: DataSource, options: OptionStore): PasskeyService {
  const passkeys = db.getRepository(PasskeyEntity);

  return {
    relyingParty(request) {
      if (!options.get('passkey.enabled')) throw new UserError(msg('passkey.not_enabled'));
      try {
        return resolveRelyingParty(
          {
            rpId: options.get('passkey.rp_id'),
            rpName: options.get('passkey.rp_display_name'),
            origins: options.get('passkey.origins'),
            allowInsecureOrigin: options.get('passkey.allow_insecure_origin'),
            serverAddress: options.get('ServerAddress'),
            systemName: options.get('SystemName'),
          },
          `${request.protocol}://${request.host}`,
        );
      } catch (error) {
        // resolveRelyingParty's reason, a catalogue message.
        throw new UserError((error as Error).message);
      }
    },
    async list(userId) {
      return (await passkeys.find({ where: { user_id: userId }, order: { id: 'ASC' } })).map(toView);
    },
    count: (userId) => passkeys.countBy({ user_id: userId }),
    async registrationOptions(rp, user) {
      const existing = await passkeys.findBy({ user_id: user.id });
      if (existing.length >= PASSKEYS_MAX) throw new UserError(msg('passkey.limit', { max: String(PASSKEYS_MAX) }));
      const attachment = options.get('passkey.attachment_preference');
      const generated = await (
        await webAuthn()
      ).generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: user.username,
        userDisplayName: user.displayName || user.username,
        // The user handle: the user id, so a discoverable sign-in can name its user.
        userID: new TextEncoder().encode(String(user.id)),
        attestationType: 'none',
        excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: transportsOf(row) })),
        authenticatorSelection: {
          residentKey: 'required',
          userVerification: options.get('passkey.user_verification'),
          ...(attachment ? { authenticatorAttachment: attachment } : {}),
        },
      });
      return { options: generated, challenge: generated.challenge };
    },
    async register(rp, userId, response, challenge, name) {
      let verified;
      try {
        verified = await (
          await webAuthn()
        ).verifyRegistrationResponse({
          response: response as unknown as RegistrationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: rp.origins,
          expectedRPID: rp.id,
          requireUserVerification: options.get('passkey.user_verification') === 'required',
        });
      } catch (error) {
        throw refused(error);
      }
      if (!verified.verified) throw new UserError(msg('passkey.verification_failed'));
      const { credential, credentialBackedUp } = verified.registrationInfo;
      const row = passkeys.create({
        user_id: userId,
        credential_id: credential.id,
        public_key: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: JSON.stringify(credential.transports ?? response.response.transports ?? []),
        backed_up: credentialBackedUp,
        name: name || `passkey ${new Date().toISOString().slice(0, 10)}`,
        created_at: Date.now(),
        last_used_at: null,
      });
      try {
        await passkeys.insert(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new UserError(msg('passkey.already_registered'));
        throw error;
      }
      return toView(row);
    },
    async authenticationOptions(rp, userId) {
      const allow = userId === undefined ? [] : await passkeys.findBy({ user_id: userId });
      if (userId !== undefined && allow.length === 0) throw new UserError(msg('passkey.none_registered'));
      const generated = await (
        await webAuthn()
      ).generateAuthenticationOptions({
        rpID: rp.id,
        allowCredentials: allow.map((row) => ({ id: row.credential_id, transports: transportsOf(row) })),
        userVerification: options.get('passkey.user_verification'),
      });
      return { options: generated, challenge: generated.challenge };
    },
    async authenticate(rp, response, challenge, userId) {
      const row = await passkeys.findOneBy({ credential_id: response.id });
      // The same words whether the credential is unknown or someone else's: nothing to learn.
      if (!row || (userId !== undefined && row.user_id !== userId)) throw new UserError(msg('passkey.not_registered_here'));
      let verified;
      try {
        verified = await (
          await webAuthn()
        ).verifyAuthenticationResponse({
          response: response as unknown as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: rp.origins,
          expectedRPID: rp.id,
          credential: { id: row.credential_id, publicKey: Buffer.from(row.public_key, 'base64url'), counter: row.counter, transports: transportsOf(row) },
          requireUserVerification: options.get('passkey.user_verification') === 'required',
        });
      } catch (error) {
        throw refused(error);
      }
      if (!verified.verified) throw new UserError(msg('passkey.verification_failed'));
      await passkeys.update(
        { id: row.id },
        { counter: verified.authenticationInfo.newCounter, backed_up: verified.authenticationInfo.credentialBackedUp, last_used_at: Date.now() },
      );
      return row.user_id;
    },
    async remove(userId, id) {
      const result = await passkeys.delete(id === undefined ? { user_id: userId } : { user_id: userId, id });
      return result.affected ?? 0;
    },
  };
}

/**
 * The WebAuthn library, loaded with the first passkey call: with its certificate and CBOR parsers
 * it is 11 MB of resident memory that a process whose users never use passkeys does not carry.
 */
const webAuthn = () => import('@simplewebauthn/server');
