import { z } from 'zod';
import type { ProviderContext, StreamConverter, StreamEvent, StreamOutput } from '../types.js';
import { ChunkWriter } from '../shared/openai-format.js';
import { parseJson } from '../shared/upstream-response.js';
import { difyUsageSchema, usageFromDify } from './chat.js';
import { difyErrorType } from './error.js';

const eventSchema = z.object({
  event: z.string().nullish(),
  message_id: z.string().nullish(),
  answer: z.string().nullish(),
  metadata: z.object({ usage: difyUsageSchema.nullish() }).nullish(),
  // An `error` event's fields.
  status: z.number().nullish(),
  code: z.string().nullish(),
  message: z.string().nullish(),
  // Workflow and node events.
  data: z.object({ title: z.string().nullish(), status: z.string().nullish() }).nullish(),
});
type DifyEvent = z.infer<typeof eventSchema>;

/** The channel's `setting` that shows a chatflow's workflow progress to clients (as reasoning_content); off by default. */
export const WORKFLOW_EVENTS_SETTING = 'dify_workflow_events';

/**
 * Dify's chat-messages stream -> OpenAI chunks. Each SSE event's JSON names its `event`:
 * `message` and `agent_message` -> content (`answer`, the first chunk with the role);
 * `message_replace` (output moderation replaced the reply) -> its text as content; `message_end`
 * -> the finish chunk and the usage-only chunk (`metadata.usage`); `error` -> a stream error
 * (`{status, code, message}`). `ping`, agent thoughts, files, TTS audio and the workflow events
 * (`workflow_started`, `node_started`, `node_finished`, `workflow_finished`, ...) produce nothing,
 * unless the channel's setting `dify_workflow_events` is true: then the workflow and node events
 * become reasoning_content lines (never counted as completion).
 */
export class DifyStreamConverter implements StreamConverter {
  private readonly writer: ChunkWriter;
  private readonly showWorkflow: boolean;
  private started = false;

  constructor(context: ProviderContext) {
    this.writer = new ChunkWriter('chatcmpl-dify', context.upstreamModel);
    this.showWorkflow = context.channel.setting[WORKFLOW_EVENTS_SETTING] === true;
  }

  onEvent(event: StreamEvent): StreamOutput[] {
    if (event.data.trim() === '') return []; // a keep-alive
    const parsed = eventSchema.safeParse(parseJson(event.data));
    if (!parsed.success) {
      return [{ error: { message: 'Dify sent a stream event that is not valid JSON', type: 'upstream_error', code: 'bad_stream_event' } }];
    }
    const data = parsed.data;
    // The id of the chunks: Dify's message id, from the first event that carries it.
    if (!this.started && data.message_id) this.writer.id = data.message_id;
    switch (data.event ?? event.event) {
      case 'message':
      case 'agent_message':
      case 'message_replace':
        return data.answer ? [this.delta({ content: data.answer }, data.answer)] : [];
      case 'message_end':
        return this.end(data);
      case 'error':
        return [
          {
            error: {
              message: data.message ?? 'Dify reported an error in the stream',
              type: difyErrorType(data.status ?? 500, data.code),
              code: data.code ?? 'stream_error',
            },
          },
        ];
      case 'workflow_started':
      case 'node_started':
      case 'node_finished':
      case 'workflow_finished':
        return this.showWorkflow ? [this.delta({ reasoning_content: workflowLine(data.event ?? event.event ?? '', data) })] : [];
      default: // ping, agent_thought, message_file, tts_message, tts_message_end, iteration and loop events
        return [];
    }
  }

  onEnd(): StreamOutput[] {
    return [];
  }

  /** A chunk with one delta; the first one of the stream carries the role. */
  private delta(delta: Record<string, unknown>, text?: string): StreamOutput {
    const first = !this.started;
    this.started = true;
    return this.writer.delta(first ? { role: 'assistant', ...delta } : delta, text);
  }

  private end(data: DifyEvent): StreamOutput[] {
    const outputs: StreamOutput[] = [];
    if (!this.started) outputs.push(this.delta({ content: '' }));
    outputs.push(this.writer.finish('stop'));
    const usage = usageFromDify(data.metadata?.usage);
    if (usage) outputs.push(this.writer.usage(usage));
    return outputs;
  }
}

/** One line of workflow progress: `workflow started`, `node "LLM" started`, `node "LLM" succeeded`, `workflow succeeded`. */
function workflowLine(name: string, data: DifyEvent): string {
  const title = data.data?.title ? `"${data.data.title}" ` : '';
  switch (name) {
    case 'workflow_started':
      return 'workflow started\n';
    case 'node_started':
      return `node ${title}started\n`;
    case 'node_finished':
      return `node ${title}${data.data?.status ?? 'finished'}\n`;
    default:
      return `workflow ${data.data?.status ?? 'finished'}\n`;
  }
}
