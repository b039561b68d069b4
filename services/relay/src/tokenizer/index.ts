export { countText, encodingNameForModel, preloadEncoders, type EncodingName } from './encodings.js';
export { countChatPrompt } from './chat-prompt.js';
export { CompletionCounter } from './completion-counter.js';
export { imageTokens, imageSizeFromDataUrl, type ImageSize } from './image-tokens.js';
