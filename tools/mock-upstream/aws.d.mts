// Types of aws.mjs, for TypeScript callers (tests).
import type { IncomingHttpHeaders } from 'node:http';

/** The access keys the mock knows, with their secrets (AWS's documentation example keys). */
export declare const BEDROCK_CREDENTIALS: { readonly AKIAIOSFODNN7EXAMPLE: string; readonly ASIAMOCKTEMPORARY001: string };
/** The session token the temporary access key needs. */
export declare const BEDROCK_SESSION_TOKEN: string;
/** Why AWS would refuse the signature (`[exception, message]`), or null when it is right. */
export declare function signatureProblem(
  req: { method: string; headers: IncomingHttpHeaders },
  path: string,
  query: URLSearchParams,
  raw: string | undefined,
  now?: number,
): [string, string] | null;
/** One AWS event-stream message with string headers. */
export declare function eventStreamMessage(headers: Record<string, string>, payload: string): Buffer;
