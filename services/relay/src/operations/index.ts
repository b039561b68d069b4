export type { Attempt, Inspected, OperationDefinition, OperationName, OutputFormat } from './types.js';
export { anthropicMessagesOperation, chatCompletionsOperation } from './chat.js';
export { completionsOperation, embeddingsOperation, moderationsOperation } from './openai-passthrough.js';
export { rerankOperation } from './rerank.js';
