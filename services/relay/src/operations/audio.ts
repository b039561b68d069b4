/**
 * OpenAI's audio APIs: speech (text in, audio piped out; audio-speech.ts) and transcription and
 * translation (an audio upload in, text out; audio-transcription.ts).
 */
export { speechOperation } from './audio-speech.js';
export { transcriptionsOperation, translationsOperation } from './audio-transcription.js';
