/**
 * Subject rules shared by both bus adapters, so a subject that works embedded also works on
 * NATS: `domain.noun.verb`, wildcards (`*` one token, a final `>` the rest) only after the
 * domain, and never the `rpc` domain, where requests travel on NATS (a stream there would
 * swallow them). Returns the domain, which names the event stream.
 */
export function eventDomain(subject: string, wildcardsAllowed: boolean): string {
  const tokens = subject.split('.');
  const tokenValid = (token: string, index: number): boolean => {
    if (token === '*') return wildcardsAllowed && index > 0;
    if (token === '>') return wildcardsAllowed && index > 0 && index === tokens.length - 1;
    return /^[^\s*>]+$/.test(token);
  };
  if (tokens.length < 2 || tokens[0] === 'rpc' || !tokens.every(tokenValid)) {
    throw new Error(`invalid event subject "${subject}": expected domain.noun.verb${wildcardsAllowed ? ', wildcards after the domain' : ''}`);
  }
  return tokens[0]!;
}

/** What a responder's error becomes on the requester's side. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
