// jsdom for the console's component tests, with Node's own fetch and the web platform classes
// it needs (jsdom has no fetch, and mixing its AbortSignal or streams with Node's fetch fails).
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');
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

/**
 * Why a console run ended with "A worker process has failed to exit gracefully": nothing leaks a
 * handle (with --detectOpenHandles no file reports one, and a worker's event loop is empty when
 * jest ends it), but a worker grew to about 2 GB: V8 collects lazily, so the garbage of the
 * twenty jsdom files a worker runs piles up, and freeing that much when the process exits took
 * longer on two busy cores than the 500 ms jest-worker waits before it kills the worker. Two
 * remedies: a full collection after each file keeps a worker near its live size (a few hundred
 * MB; jest's own leak detector exposes the collector the same way), and a worker ends at once
 * when Node says it is exiting, instead of having V8 free its heap page by page.
 */
function collectGarbage() {
  const hidden = typeof globalThis.gc !== 'function';
  if (hidden) setFlagsFromString('--expose-gc');
  runInNewContext('gc')();
  if (hidden) setFlagsFromString('--no-expose-gc');
}

/**
 * process.exit() inside an 'exit' listener ends the process at once (a listener added after this
 * one would not run; a jest worker has none). Workers only: a run in band is jest's own process,
 * which has no IPC channel.
 */
function exitWorkerAtOnce() {
  const installed = Symbol.for('aigw.console-tests.exit-at-once');
  if (typeof process.send !== 'function' || process[installed]) return;
  process[installed] = true;
  process.on('exit', (code) => process.exit(code));
}

exitWorkerAtOnce();

class ConsoleEnvironment extends TestEnvironment {
  constructor(...args) {
    super(...args);
    for (const name of fromNode) if (globalThis[name]) this.global[name] = globalThis[name];
    this.global.MessageChannel = timerMessageChannel(this.global);
  }

  async teardown() {
    await super.teardown();
    collectGarbage();
  }
}

module.exports = ConsoleEnvironment;
