import { contentText, type ChatMessage } from './chat-request.js';

/**
 * How a native protocol (Anthropic Messages, Gemini generateContent) takes OpenAI chat messages:
 * its names for the two sides, and the items (blocks, parts) each kind of message becomes.
 */
export interface TurnMapping<Role extends string, Item> {
  /** The provider's name in the warning about a dropped message role. */
  provider: string;
  userRole: Role;
  assistantRole: Role;
  user(message: ChatMessage): Item[];
  assistant(message: ChatMessage): Item[];
  /** A tool result: it is sent on the user side. */
  tool(message: ChatMessage): Item[];
}

/** One turn of the conversation: a side and everything it says in a row. */
export interface Turn<Role extends string, Item> {
  role: Role;
  items: Item[];
}

/**
 * OpenAI chat messages -> the system text and the turns of a native protocol. System and
 * developer messages make the system text (joined by a blank line, empty ones left out); user
 * messages and tool results go to the user side; consecutive messages of one side fold into one
 * turn, since both protocols want the sides to alternate and parallel tool results to share a
 * turn; a message with nothing to send adds nothing. Any other role is dropped with a warning.
 * The mapping's functions are called in message order (a tool result may name an earlier call).
 */
export function foldTurns<Role extends string, Item>(
  input: ChatMessage[],
  warnings: string[],
  mapping: TurnMapping<Role, Item>,
): { system: string; turns: Array<Turn<Role, Item>> } {
  const system: string[] = [];
  const turns: Array<Turn<Role, Item>> = [];
  const push = (role: Role, items: Item[]) => {
    if (items.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.items.push(...items);
    else turns.push({ role, items });
  };
  for (const message of input) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(contentText(message.content));
        break;
      case 'user':
        push(mapping.userRole, mapping.user(message));
        break;
      case 'assistant':
        push(mapping.assistantRole, mapping.assistant(message));
        break;
      case 'tool':
        push(mapping.userRole, mapping.tool(message));
        break;
      default:
        warnings.push(`message role "${message.role}" is not supported by ${mapping.provider} and was dropped`);
    }
  }
  return { system: system.filter((text) => text !== '').join('\n\n'), turns };
}

/**
 * The turns of a protocol that takes text only (Baidu ERNIE, Tencent Hunyuan, Zhipu v3): each
 * message's text, empty ones left out; image parts, tool calls and tool results cannot be sent
 * and are reported as dropped.
 */
export function textOnlyTurns(
  input: ChatMessage[],
  warnings: string[],
  provider: string,
): { system: string; turns: Array<Turn<'user' | 'assistant', string>> } {
  const text = (message: ChatMessage) => {
    const value = contentText(message.content);
    return value === '' ? [] : [value];
  };
  return foldTurns<'user' | 'assistant', string>(input, warnings, {
    provider,
    userRole: 'user',
    assistantRole: 'assistant',
    user: (message) => {
      if (Array.isArray(message.content)) {
        for (const part of message.content) {
          if (part.type !== 'text')
            warnings.push(`content part "${part.type === 'other' ? part.originalType : part.type}" is not supported by ${provider} and was dropped`);
        }
      }
      return text(message);
    },
    assistant: (message) => {
      if (message.tool_calls?.length) warnings.push(`tool calls are not supported by ${provider} and were dropped`);
      return text(message);
    },
    tool: () => {
      warnings.push(`tool results are not supported by ${provider} and were dropped`);
      return [];
    },
  });
}
