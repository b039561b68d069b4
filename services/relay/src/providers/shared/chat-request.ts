import { z } from 'zod';

/**
 * The OpenAI chat request as clients send it, parsed leniently (style rule 12, CONTRIBUTING.md):
 * unknown fields are ignored here (OpenAI-compatible upstreams get the raw body anyway), `null`
 * counts as absent, and unknown content part types survive as `{type}` so a converter can report
 * dropping them.
 */

/** A content part, normalised: text, an image (URL or data URL), or another kind kept by name. */
export type ContentPart =
  { type: 'text'; text: string } | { type: 'image_url'; url: string; detail: string | undefined } | { type: 'other'; originalType: string };

const textPartSchema = z.object({ type: z.literal('text'), text: z.string() }).transform((part): ContentPart => part);
const imagePartSchema = z
  .object({ type: z.literal('image_url'), image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.string().nullish() })]) })
  .transform(({ image_url: image }): ContentPart =>
    typeof image === 'string' ? { type: 'image_url', url: image, detail: undefined } : { type: 'image_url', url: image.url, detail: image.detail ?? undefined },
  );
const otherPartSchema = z.object({ type: z.string() }).transform(({ type }): ContentPart => ({ type: 'other', originalType: type }));
export const contentPartSchema = z.union([textPartSchema, imagePartSchema, otherPartSchema]);

export const toolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string(), arguments: z.string().nullish() }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const chatMessageSchema = z.object({
  role: z.string(),
  content: z.union([z.string(), z.array(contentPartSchema)]).nullish(),
  name: z.string().nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
  tool_call_id: z.string().nullish(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

export const chatToolSchema = z.object({
  type: z.string().nullish(),
  function: z.object({
    name: z.string(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  }),
});
export type ChatTool = z.infer<typeof chatToolSchema>;

const toolChoiceSchema = z.union([z.string(), z.object({ type: z.string().nullish(), function: z.object({ name: z.string() }) })]);

export const chatRequestSchema = z.object({
  messages: z.array(chatMessageSchema),
  tools: z.array(chatToolSchema).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_tokens: z.number().nullish(),
  max_completion_tokens: z.number().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stream: z.boolean().nullish(),
  n: z.number().nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  seed: z.number().nullish(),
  user: z.string().nullish(),
  response_format: z.looseObject({ type: z.string() }).nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** The client's chat request cannot be converted (no `messages` array, a malformed message...). Answer 400. */
export class InvalidChatRequestError extends Error {
  readonly code = 'invalid_request';
  readonly statusCode = 400;
  constructor(message: string) {
    super(message);
    this.name = 'InvalidChatRequestError';
  }
}

/** Parses a chat request for a converting provider; a shape it cannot convert is the client's error. */
export function parseChatRequest(body: Record<string, unknown>): ChatRequest {
  const parsed = chatRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new InvalidChatRequestError(`invalid chat request${where}: ${issue?.message ?? 'malformed body'}`);
}

/** Text of a message's content (text parts joined); images and other parts are left out. */
export function contentText(content: ChatMessage['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) if (part.type === 'text') text += part.text;
  return text;
}

/** Keys a converter maps or may ignore silently; any other key in the body is reported as dropped. */
export const ignoredRequestKeys = new Set(['model', 'messages', 'stream', 'stream_options']);
