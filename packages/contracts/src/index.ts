export * from './envelope.js';
export * from './roles.js';
export * from './user.js';
export * from './options.js';
export * from './status.js';
export * from './events.js';
export * from './billing.js';
