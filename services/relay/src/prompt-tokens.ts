import type { OperationDefinition } from './operations/types.js';

/**
 * A request's prompt tokens, two ways (docs/architecture.md section 5, step 3). `bound` is at
 * least the exact count and known without a tokenizer pass: the hold and the usage limits take
 * it. `exact()` is the tokenizer's count, made on the first call and at most once per request:
 * only where the upstream's usage does not say it (the usage record when none came, a stream's
 * checkpoint, what a converted stream tells its client), so most requests never count.
 */
export interface PromptTokens {
  readonly bound: number;
  readonly exact: () => number;
}

export function promptTokensOf(operation: OperationDefinition, body: Record<string, unknown>, model: string): PromptTokens {
  let exact: number | undefined;
  return {
    bound: operation.boundPrompt(body, model),
    exact: () => (exact ??= operation.estimatePrompt(body, model)),
  };
}
