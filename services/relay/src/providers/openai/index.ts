import { ChannelType, channelDefaultBaseUrls } from '@aigw/contracts';
import { openAiCompatible } from './compatible.js';
import { OPENAI_FORMAT_OPERATIONS } from '../types.js';

/** OpenAI itself (channel type 1). */
export const openAiProvider = openAiCompatible({
  id: 'openai',
  defaultBaseUrl: channelDefaultBaseUrls[ChannelType.OpenAI],
  streamUsage: true,
  // Its image APIs (generations, edits, variations), its audio APIs (speech, transcriptions,
  // translations) and the Responses API.
  operations: [
    ...OPENAI_FORMAT_OPERATIONS,
    'images',
    'image-edits',
    'image-variations',
    'audio-speech',
    'audio-transcriptions',
    'audio-translations',
    'responses',
  ],
});

export { openAiCompatible, type OpenAiCompatibleOptions } from './compatible.js';
