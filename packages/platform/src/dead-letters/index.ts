export { deadLetterEntities, deadLetterTable, type DeadLetterRow } from './dead-letter.entity.js';
export { createDeadLetterTable, dropDeadLetterTable } from './dead-letter-table.js';
export { createDeadLetterStore, type DeadLetterStore } from './dead-letter-store.js';
export { keepDeadLetters, type DeadLetterOptions, type DeadLetters, type ReplayOutcome } from './dead-letters.js';
export { deadLetterRoutes, toDeadLetterView } from './dead-letter-routes.js';
