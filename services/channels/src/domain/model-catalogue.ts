import { ChannelType } from '@aigw/contracts';

/**
 * The models the console offers when an admin fills a channel's model list, per channel type:
 * a small built-in list for the main providers. Channels' own model lists are added to it at
 * read time, so a model missing here is still offered once any channel lists it.
 */
const openAi = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'o1',
  'o1-mini',
  'o3',
  'o3-mini',
  'o4-mini',
  'gpt-4-turbo',
  'gpt-3.5-turbo',
  'text-embedding-3-small',
  'text-embedding-3-large',
  'text-embedding-ada-002',
  'text-moderation-latest',
  'dall-e-3',
  'whisper-1',
  'tts-1',
];
const anthropic = [
  'claude-3-5-haiku-20241022',
  'claude-3-5-sonnet-20241022',
  'claude-3-7-sonnet-20250219',
  'claude-3-opus-20240229',
  'claude-sonnet-4-20250514',
  'claude-opus-4-20250514',
];
const gemini = ['gemini-1.5-flash', 'gemini-1.5-pro', 'gemini-2.0-flash', 'gemini-2.0-flash-lite', 'gemini-2.5-flash', 'gemini-2.5-pro', 'text-embedding-004'];
const deepSeek = ['deepseek-chat', 'deepseek-reasoner'];

export interface CatalogueEntry {
  owner: string;
  models: readonly string[];
}

export const modelCatalogue: Partial<Record<ChannelType, CatalogueEntry>> = {
  [ChannelType.OpenAI]: { owner: 'openai', models: openAi },
  [ChannelType.Azure]: { owner: 'openai', models: openAi },
  [ChannelType.Anthropic]: { owner: 'anthropic', models: anthropic },
  [ChannelType.Gemini]: { owner: 'google', models: gemini },
  [ChannelType.DeepSeek]: { owner: 'deepseek', models: deepSeek },
};
