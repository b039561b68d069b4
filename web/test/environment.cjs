// jsdom for the console's component tests, with Node's own fetch and the web platform classes
// it needs (jsdom has no fetch, and mixing its AbortSignal or streams with Node's fetch fails).
const { TestEnvironment } = require('jest-environment-jsdom');

const fromNode = [
  'fetch',
  'Request',
  'Response',
  'Headers',
  'FormData',
  'Blob',
  'File',
  'AbortController',
  'AbortSignal',
  'ReadableStream',
  'WritableStream',
  'TransformStream',
  'TextEncoder',
  'TextDecoder',
  'TextEncoderStream',
  'TextDecoderStream',
  'structuredClone',
  'BroadcastChannel',
];

/**
 * A MessageChannel on the page's own timers. React's scheduler and antd's form post to one to
 * batch work; Node's MessageChannel would keep the test process alive after the run (its ports
 * are handles), and jsdom has none.
 */
function timerMessageChannel(global) {
  class TimerMessagePort {
    constructor() {
      this.onmessage = null;
      this.peer = null;
      this.closed = false;
    }
    postMessage(data) {
      const peer = this.peer;
      global.setTimeout(() => {
        if (!peer.closed && typeof peer.onmessage === 'function') peer.onmessage({ data });
      }, 0);
    }
    addEventListener(type, listener) {
      if (type === 'message') this.onmessage = listener;
    }
    removeEventListener(type, listener) {
      if (type === 'message' && this.onmessage === listener) this.onmessage = null;
    }
    start() {}
    close() {
      this.closed = true;
    }
  }
  return class MessageChannel {
    constructor() {
      this.port1 = new TimerMessagePort();
      this.port2 = new TimerMessagePort();
      this.port1.peer = this.port2;
      this.port2.peer = this.port1;
    }
  };
}

class ConsoleEnvironment extends TestEnvironment {
  constructor(...args) {
    super(...args);
    for (const name of fromNode) if (globalThis[name]) this.global[name] = globalThis[name];
    this.global.MessageChannel = timerMessageChannel(this.global);
  }
}

module.exports = ConsoleEnvironment;
