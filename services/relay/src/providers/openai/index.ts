import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import { openAiCompatible } from './compatible.js';

/** OpenAI itself (channel type 1). */
export const openAiProvider = openAiCompatible({
  id: 'openai',
  defaultBaseUrl: channelDefaultBaseUrls[ChannelType.OpenAI],
  streamUsage: true,
});

export { openAiCompatible, type OpenAiCompatibleOptions } from './compatible.js';
