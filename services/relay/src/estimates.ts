import { countText, CompletionCounter, textTokenBound } from './tokenizer/index.js';

export { CompletionCounter };

/** Tokens of a text or a batch of texts (token-id arrays count their length). */
export function countTexts(value: unknown, model: string): number {
  if (typeof value === 'string') return countText(value, model);
  if (Array.isArray(value))
    return value.reduce((sum: number, item) => sum + (typeof item === 'string' ? countText(item, model) : Array.isArray(item) ? item.length : 0), 0);
  return 0;
}

/** At least `countTexts(value, model)` for every model, without a tokenizer pass: bytes for the texts' tokens (`textTokenBound`). */
export function textsTokenBound(value: unknown): number {
  if (typeof value === 'string') return textTokenBound(value);
  if (!Array.isArray(value)) return 0;
  let tokens = 0;
  for (const item of value as unknown[]) tokens += typeof item === 'string' ? textTokenBound(item) : Array.isArray(item) ? item.length : 0;
  return tokens;
}

/** Completion tokens of a whole OpenAI-format answer that came without usage. */
export function estimateCompletion(body: unknown, model: string): number {
  const choices = (body as { choices?: Array<{ message?: { content?: unknown; tool_calls?: Array<{ function?: { arguments?: unknown } }> }; text?: unknown }> })
    ?.choices;
  if (!Array.isArray(choices)) return 0;
  const counter = new CompletionCounter(model);
  for (const choice of choices) {
    if (typeof choice.message?.content === 'string') counter.add(choice.message.content);
    if (typeof choice.text === 'string') counter.add(choice.text);
    for (const call of choice.message?.tool_calls ?? []) if (typeof call.function?.arguments === 'string') counter.add(call.function.arguments);
  }
  return counter.total();
}
