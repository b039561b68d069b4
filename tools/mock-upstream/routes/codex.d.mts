// Types of codex.mjs, for TypeScript callers (tests).

/** The Codex CLI's public OAuth client id, which a refresh must name. */
export declare const CODEX_CLIENT_ID: string;
/** The ChatGPT accounts the mock knows: refresh token -> account id (process-wide; `mock-codex-refresh` -> `mock-account`). */
export declare const codexAccounts: Map<string, string>;
/** What a refresh answers as `expires_in` (seconds). */
export declare const CODEX_TOKEN_LIFETIME_S: number;
/** An access token of the account, expiring at `expiresAt` (epoch seconds), that the mock accepts until then. */
export declare function codexAccessToken(accountId: string, expiresAt: number): string;
