import { anthropicToOpenAi, openAiToAnthropicMessage, OpenAiToAnthropicStream } from '../../src/formats/anthropic-input';

/** Parses `event: x\ndata: {...}\n\n` strings back into [event, data] pairs. */
function parseEvents(text: string): Array<{ event: string; data: Record<string, any> }> {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const [eventLine, dataLine] = frame.split('\n');
      expect(eventLine).toMatch(/^event: /);
      expect(dataLine).toMatch(/^data: /);
      const data = JSON.parse(dataLine!.slice('data: '.length));
      expect(data.type).toBe(eventLine!.slice('event: '.length));
      return { event: eventLine!.slice('event: '.length), data };
    });
}

describe('anthropicToOpenAi', () => {
  it('converts system, text, images, tool use and tool results, tools and parameters', () => {
    const body = anthropicToOpenAi({
      model: 'claude-x',
      max_tokens: 256,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Be kind.' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 5,
      stop_sequences: ['END'],
      stream: true,
      metadata: { user_id: 'u-1' },
      messages: [
        { role: 'user', content: 'What is the weather?' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And this picture?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
      tools: [{ name: 'weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: { type: 'tool', name: 'weather', disable_parallel_tool_use: true },
    });
    expect(body).toEqual({
      model: 'claude-x',
      max_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      stream: true,
      user: 'u-1',
      messages: [
        { role: 'system', content: 'Be brief.\nBe kind.' },
        { role: 'user', content: 'What is the weather?' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      parallel_tool_calls: false,
    });
  });

  it('maps tool_choice any and none, and a plain string system', () => {
    const tools = [{ name: 't', input_schema: { type: 'object' } }];
    const base = { model: 'm', max_tokens: 1, system: 'sys', messages: [{ role: 'user', content: 'x' }], tools };
    expect(anthropicToOpenAi({ ...base, tool_choice: { type: 'any' } }).tool_choice).toBe('required');
    expect(anthropicToOpenAi({ ...base, tool_choice: { type: 'none' } }).tool_choice).toBe('none');
    expect(anthropicToOpenAi({ ...base, tool_choice: { type: 'auto' } }).tool_choice).toBe('auto');
    expect((anthropicToOpenAi(base).messages as unknown[])[0]).toEqual({ role: 'system', content: 'sys' });
  });
});

describe('openAiToAnthropicMessage', () => {
  it('converts text, tool calls, the finish reason and usage', () => {
    const message = openAiToAnthropicMessage(
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'gpt-upstream',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: 'Checking.',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
            },
          },
        ],
        usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37, prompt_tokens_details: { cached_tokens: 10 } },
      },
      'claude-x',
    );
    expect(message).toEqual({
      id: 'msg_chatcmpl-1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 10 },
    });
  });

  it('maps stop and length', () => {
    const of = (finish_reason: string) => openAiToAnthropicMessage({ choices: [{ message: { content: 'x' }, finish_reason }] }, 'm');
    expect(of('stop').stop_reason).toBe('end_turn');
    expect(of('length').stop_reason).toBe('max_tokens');
    expect(of('stop').usage).toEqual({ input_tokens: 0, output_tokens: 0 });
  });
});

describe('OpenAiToAnthropicStream', () => {
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
    JSON.stringify({ id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason }] });

  it('converts text and tool calls, and takes the usage from the final usage-only chunk', () => {
    const converter = new OpenAiToAnthropicStream('claude-x', 12);
    const chunks = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'time', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      JSON.stringify({
        id: 'chatcmpl-9',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'up',
        choices: [],
        usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
      }),
    ];
    // The upstream reported usage: the relay's own count (a tokenizer pass) is never made.
    const count = jest.fn(() => ({ input_tokens: 1, output_tokens: 1 }));
    const text = [...chunks.flatMap((data) => converter.push(data)), ...converter.finish(count)].join('');
    expect(count).not.toHaveBeenCalled();
    const events = parseEvents(text);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]!.data.message).toMatchObject({
      id: 'msg_chatcmpl-9',
      role: 'assistant',
      model: 'claude-x',
      content: [],
      usage: { input_tokens: 12, output_tokens: 0 },
    });
    expect(events[1]!.data).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    expect(events[2]!.data.delta).toEqual({ type: 'text_delta', text: 'Hel' });
    expect(events[5]!.data).toEqual({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_a', name: 'weather', input: {} } });
    expect(events[6]!.data).toEqual({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } });
    expect(events[9]!.data.content_block).toMatchObject({ type: 'tool_use', id: 'call_b', name: 'time' });
    expect(events[10]!.data).toMatchObject({ index: 2, delta: { partial_json: '{}' } });
    expect(events[12]!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 40, output_tokens: 9 },
    });
  });

  it('uses the fallback usage when the upstream sent none, and still opens the message on an empty stream', () => {
    const converter = new OpenAiToAnthropicStream('m');
    const events = parseEvents(
      [...converter.push(chunk({ content: 'x' }, 'length')), ...converter.finish(() => ({ input_tokens: 5, output_tokens: 1 }))].join(''),
    );
    expect(events.at(-2)!.data).toMatchObject({ delta: { stop_reason: 'max_tokens' }, usage: { input_tokens: 5, output_tokens: 1 } });
    const empty = parseEvents(new OpenAiToAnthropicStream('m').finish().join(''));
    expect(empty.map((event) => event.event)).toEqual(['message_start', 'message_delta', 'message_stop']);
  });
});
