import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RoutingChannel } from '@aigw/contracts';
import { SseParser } from '../../src/sse/sse-parser.js';
import type { EventFramer, ProviderContext, StreamConverter, StreamOutput } from '../../src/providers/types.js';

/** Helpers shared by the provider fixture tests. */

export function channel(overrides: Partial<RoutingChannel> = {}): RoutingChannel {
  return {
    id: 7,
    type: 1,
    name: 'test channel',
    status: 1,
    groups: ['default'],
    models: ['gpt-4o'],
    base_url: '',
    other: '',
    model_mapping: {},
    status_code_mapping: {},
    param_override: {},
    setting: {},
    priority: 0,
    weight: 0,
    tag: '',
    auto_ban: 1,
    openai_organization: '',
    allow_private_network: false,
    multi_key: null,
    rate_limits: {},
    version: 1,
    ...overrides,
  };
}

export function context(overrides: Partial<ProviderContext> & { channel?: RoutingChannel } = {}): ProviderContext {
  return { channel: channel(), key: 'sk-upstream-key', upstreamModel: 'gpt-4o', requestedModel: 'gpt-4o', stream: false, ...overrides };
}

export function fixtureText(name: string): string {
  return readFileSync(join(__dirname, '__fixtures__', name), 'utf8');
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name));
}

/**
 * Feeds a stream fixture through the framer (SSE, or a provider's own `framing`) in chunks of
 * `chunkSize` bytes and then the converter, as the relay does.
 */
export function runStream(converter: StreamConverter, sse: string, chunkSize = 37, parser: EventFramer = new SseParser()): StreamOutput[] {
  const bytes = Buffer.from(sse, 'utf8');
  const outputs: StreamOutput[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunkSize) {
    for (const event of parser.push(bytes.subarray(offset, offset + chunkSize))) outputs.push(...converter.onEvent(event));
  }
  for (const event of parser.end()) outputs.push(...converter.onEvent(event));
  outputs.push(...converter.onEnd());
  return outputs;
}

/** The OpenAI chunks a stream produced, parsed. */
export function chunksOf(outputs: StreamOutput[]): Array<Record<string, any>> {
  return outputs.filter((output) => output.data !== undefined).map((output) => JSON.parse(output.data!));
}

/** All the completion text a stream reported for counting. */
export function textOf(outputs: StreamOutput[]): string {
  return outputs.map((output) => output.text ?? '').join('');
}

/** The last usage a stream reported (the relay keeps the last one). */
export function lastUsage(outputs: StreamOutput[]) {
  return outputs.filter((output) => output.usage).at(-1)?.usage ?? null;
}

export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};

/** A representative client request: system prompt, text, two images (inline and remote) and a tool. */
export function sampleChatRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'You are a terse assistant.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture? Then get the weather in Paris.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_PNG}`, detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.com/photos/cat.jpg' } },
        ],
      },
    ],
    tools: [weatherTool],
    tool_choice: 'auto',
    temperature: 0.2,
    top_p: 0.9,
    max_tokens: 256,
    stop: ['END'],
    ...overrides,
  };
}

/** The same conversation one round later: the assistant called the tool and the tool answered. */
export function toolRoundTripRequest(): Record<string, unknown> {
  const first = sampleChatRequest();
  return {
    ...first,
    messages: [
      ...(first.messages as unknown[]),
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"temperature_c":18,"sky":"clear"}' },
    ],
  };
}
