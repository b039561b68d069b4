export * from './services.js';
export * from './infrastructure.js';
