export type { Attempt, ClientStream, Inspected, OperationDefinition, OperationName, StreamPiece, UpstreamAnswer } from './types.js';
export { chatCompletionsOperation } from './chat.js';
export { messagesOperation } from './messages.js';
export { completionsOperation, embeddingsOperation, moderationsOperation } from './openai-passthrough.js';
export { rerankOperation } from './rerank.js';
export { responsesOperation } from './responses.js';
export { imageEditsOperation, imageGenerationsOperation, imageVariationsOperation } from './images.js';
export { speechOperation, transcriptionsOperation, translationsOperation } from './audio.js';
