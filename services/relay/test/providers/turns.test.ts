import type { ChatMessage } from '../../src/providers/shared/chat-request.js';
import { foldTurns, type TurnMapping } from '../../src/providers/shared/turns.js';

/** A mapping whose items are the message's text, tagged by kind, so the folding shows plainly. */
const mapping: TurnMapping<'human' | 'bot', string> = {
  provider: 'Example',
  userRole: 'human',
  assistantRole: 'bot',
  user: (message) => (typeof message.content === 'string' && message.content !== '' ? [`user:${message.content}`] : []),
  assistant: (message) => [
    ...(typeof message.content === 'string' && message.content !== '' ? [`text:${message.content}`] : []),
    ...(message.tool_calls ?? []).map((call) => `call:${call.function.name}`),
  ],
  tool: (message) => [`result:${message.tool_call_id}`],
};

const fold = (messages: ChatMessage[]) => {
  const warnings: string[] = [];
  return { ...foldTurns(messages, warnings, mapping), warnings };
};

describe('foldTurns: OpenAI messages as alternating native turns', () => {
  it('joins system and developer messages into the system text, leaving out empty ones', () => {
    const { system, turns } = fold([
      { role: 'system', content: 'Be terse.' },
      { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
      { role: 'system', content: '' },
      { role: 'user', content: 'Hello' },
    ]);
    expect(system).toBe('Be terse.\n\nAnswer in French.');
    expect(turns).toEqual([{ role: 'human', items: ['user:Hello'] }]);
  });

  it('folds consecutive messages of one side into one turn, tool results on the user side', () => {
    const { turns } = fold([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      { role: 'user', content: 'Quickly.' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'a', function: { name: 'weather' } },
          { id: 'b', function: { name: 'weather' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: '18C' },
      { role: 'tool', tool_call_id: 'b', content: '24C' },
      { role: 'user', content: 'Thanks' },
      { role: 'assistant', content: 'You are welcome.' },
    ]);
    expect(turns).toEqual([
      { role: 'human', items: ['user:Weather in Paris and Rome?', 'user:Quickly.'] },
      { role: 'bot', items: ['text:Looking.', 'call:weather', 'call:weather'] },
      { role: 'human', items: ['result:a', 'result:b', 'user:Thanks'] },
      { role: 'bot', items: ['text:You are welcome.'] },
    ]);
  });

  it('adds nothing for a message with nothing to send, so the sides around it still fold', () => {
    const { turns } = fold([
      { role: 'user', content: 'One' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'Two' },
    ]);
    expect(turns).toEqual([{ role: 'human', items: ['user:One', 'user:Two'] }]);
  });

  it('drops an unknown role with a warning naming the provider', () => {
    const { turns, warnings } = fold([
      { role: 'function', content: 'x' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(turns).toEqual([{ role: 'human', items: ['user:Hi'] }]);
    expect(warnings).toEqual(['message role "function" is not supported by Example and was dropped']);
  });

  it('calls the mapping in message order, so a tool result can name an earlier call', () => {
    const names = new Map<string, string>();
    const warnings: string[] = [];
    const { turns } = foldTurns<'human' | 'bot', string>(
      [
        { role: 'assistant', tool_calls: [{ id: 'call_1', function: { name: 'lookup' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'found' },
      ],
      warnings,
      {
        ...mapping,
        assistant: (message) =>
          (message.tool_calls ?? []).map((call) => {
            names.set(call.id ?? '', call.function.name);
            return `call:${call.function.name}`;
          }),
        tool: (message) => [`result of ${names.get(message.tool_call_id ?? '')}`],
      },
    );
    expect(turns).toEqual([
      { role: 'bot', items: ['call:lookup'] },
      { role: 'human', items: ['result of lookup'] },
    ]);
  });
});
