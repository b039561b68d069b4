export * from './services.js';
export * from './infrastructure.js';
export * from './tcp-proxy.js';
export * from './random.js';
