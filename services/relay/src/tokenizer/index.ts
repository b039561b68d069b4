export { countText, encodingNameForModel, preloadEncoders, textTokenBound, type EncodingName } from './encodings.js';
export { chatPromptBound, countChatPrompt } from './chat-prompt.js';
export { CompletionCounter } from './completion-counter.js';
export { imageTokens, imageSizeFromDataUrl, type ImageSize } from './image-tokens.js';
