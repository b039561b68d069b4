import { foldStream } from '../../src/providers/shared/stream-fold.js';
import { UpstreamAnswerError } from '../../src/providers/shared/upstream-error.js';
import { openAiProvider } from '../../src/providers/openai/index.js';
import { anthropicProvider } from '../../src/providers/anthropic/index.js';
import { context } from './support.js';

const sse = (...chunks: unknown[]) => chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n';
const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-9',
  object: 'chat.completion.chunk',
  created: 7,
  model: 'm-1',
  choices,
  ...extra,
});

describe('a whole answer folded from a stream (providers whose upstream only streams)', () => {
  it('joins content and reasoning per choice, keeps the finish reason, the id and the usage', () => {
    const text = sse(
      chunk([{ index: 0, delta: { role: 'assistant', reasoning_content: 'Think' } }]),
      chunk([
        { index: 0, delta: { reasoning_content: 'ing.' } },
        { index: 1, delta: { content: 'B' } },
      ]),
      chunk([{ index: 0, delta: { content: 'Hel' } }]),
      chunk([{ index: 0, delta: { content: 'lo' }, finish_reason: 'length' }]),
      chunk([], { usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15, prompt_tokens_details: { cached_tokens: 3 } } }),
    );
    const { body, usage } = foldStream(openAiProvider, text, context());
    expect(usage).toEqual({ prompt_tokens: 11, completion_tokens: 4, cached_tokens: 3 });
    expect(body).toEqual({
      id: 'chatcmpl-9',
      object: 'chat.completion',
      created: 7,
      model: 'm-1',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello', reasoning_content: 'Thinking.' }, finish_reason: 'length' },
        { index: 1, message: { role: 'assistant', content: 'B' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15, prompt_tokens_details: { cached_tokens: 3 } },
    });
  });

  it('assembles tool calls from their argument pieces, content null', () => {
    const text = sse(
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } }] } }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ty":"Paris"}' } }] } }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'now', arguments: '{}' } }] } }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
    );
    const { body, usage } = foldStream(openAiProvider, text, context());
    expect(usage).toBeNull();
    expect((body.choices as unknown[])[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'now', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('runs the provider’s own converter (an Anthropic stream becomes one completion with its usage)', () => {
    const events = [
      ['message_start', { type: 'message_start', message: { id: 'msg_1', model: 'claude-x', usage: { input_tokens: 9, output_tokens: 1 } } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi there' } }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }],
      ['message_stop', { type: 'message_stop' }],
    ] as const;
    const text = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
    const { body, usage } = foldStream(anthropicProvider, text, context({ upstreamModel: 'claude-x' }));
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 2 });
    expect(body).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }] });
  });

  it('answers an empty stream with one empty choice, and an error inside the stream as the channel’s failure', () => {
    expect(foldStream(openAiProvider, '', context()).body).toMatchObject({ choices: [{ index: 0, message: { content: '' }, finish_reason: 'stop' }] });
    const failing = sse({ error: { message: 'overloaded', type: 'server_error', code: 'overloaded' } });
    const thrown = (() => {
      try {
        foldStream(openAiProvider, failing, context());
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(thrown).toBeInstanceOf(UpstreamAnswerError);
    expect(thrown).toMatchObject({ statusCode: 502, error: { message: 'overloaded' } });
  });
});
