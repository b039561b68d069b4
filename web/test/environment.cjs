// jsdom for the console's component tests, with Node's own fetch and the web platform classes
// it needs (jsdom has no fetch, and mixing its AbortSignal or streams with Node's fetch fails).
const { TestEnvironment } = require('jest-environment-jsdom');

const fromNode = [
  'fetch', 'Request', 'Response', 'Headers', 'FormData', 'Blob', 'File', 'AbortController', 'AbortSignal',
  'ReadableStream', 'WritableStream', 'TransformStream', 'TextEncoder', 'TextDecoder', 'TextEncoderStream', 'TextDecoderStream',
  'structuredClone', 'BroadcastChannel', 'MessageChannel', 'MessagePort',
];

class ConsoleEnvironment extends TestEnvironment {
  constructor(...args) {
    super(...args);
    for (const name of fromNode) if (globalThis[name]) this.global[name] = globalThis[name];
  }
}

module.exports = ConsoleEnvironment;
