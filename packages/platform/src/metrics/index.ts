export * from './registry.js';
export * from './families.js';
export * from './http.js';
export * from './server.js';
