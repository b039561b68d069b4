import { failSpan, runInSpan, spanTraceparent, startSpan, type Span } from '@aigw/platform/tracing';
import type { OperationName } from './operations/types.js';
import type { Usage } from './providers/types.js';

/** The GenAI conventions' operation names where one applies; the relay's own name otherwise. */
const GEN_AI_OPERATIONS: Partial<Record<OperationName, string>> = {
  chat: 'chat',
  responses: 'chat',
  completions: 'text_completion',
  embeddings: 'embeddings',
};

/**
 * A relayed request's span (OpenTelemetry GenAI semantic conventions): from admission to its
 * usage record, the parent of every upstream call it made (undici's client spans), so a trace
 * shows gateway -> relay -> upstream, and the usage record carries its context to billing. It
 * holds what a dashboard needs (model, provider, channel, tokens, quota) and never a prompt, an
 * answer, an error's text or a key.
 */
export class RelaySpan {
  private constructor(private readonly span: Span) {}

  /** The request's span, or null when tracing is off (then nothing here costs anything). */
  static start(operation: OperationName, model: string, requestId: string): RelaySpan | null {
    const name = GEN_AI_OPERATIONS[operation] ?? operation;
    const span = startSpan(`${name} ${model}`, 'client', { 'gen_ai.operation.name': name, 'gen_ai.request.model': model, 'aigw.request.id': requestId });
    return span ? new RelaySpan(span) : null;
  }

  /** Runs an upstream call inside this span: its HTTP client span is this one's child. */
  around<T>(call: () => Promise<T>): Promise<T> {
    return runInSpan(this.span, call);
  }

  /** The W3C traceparent of this span, for the usage record's bus message. */
  traceparent(): string | undefined {
    return spanTraceparent(this.span);
  }

  /** What the request's usage record says: the conventions' usage and response attributes, and ours. */
  recorded(record: { system: string | undefined; channelId: number; upstreamModel: string | undefined; usage: Usage; quota: number }): void {
    if (record.system) this.span.setAttributes({ 'gen_ai.system': record.system, 'gen_ai.provider.name': record.system });
    if (record.upstreamModel) this.span.setAttribute('gen_ai.response.model', record.upstreamModel);
    this.span.setAttributes({
      'gen_ai.usage.input_tokens': record.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': record.usage.completion_tokens,
      'gen_ai.usage.cache_read.input_tokens': record.usage.cached_tokens,
      'aigw.channel.id': record.channelId,
      'aigw.quota': record.quota,
    });
  }

  /** Ends the span; an error the client got (thrown) marks it failed, with its status code. */
  end(error?: unknown): void {
    if (error !== undefined) {
      const status = (error as { statusCode?: unknown }).statusCode;
      if (typeof status === 'number') this.span.setAttribute('http.response.status_code', status);
      failSpan(this.span, (error as { code?: unknown }).code ? String((error as { code: unknown }).code) : error instanceof Error ? error.name : 'error');
    }
    this.span.end();
  }
}
