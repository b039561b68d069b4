import { installComputedStyle } from './computed-style';

// What antd needs from a browser that jsdom does not provide.
const matchMediaStub = (query: string): MediaQueryList => ({
  matches: false,
  media: query,
  onchange: null,
  addListener: () => undefined,
  removeListener: () => undefined,
  addEventListener: () => undefined,
  removeEventListener: () => undefined,
  dispatchEvent: () => false,
});
Object.defineProperty(window, 'matchMedia', { writable: true, value: matchMediaStub });

// jsdom's getComputedStyle is slow with antd's style rules (see computed-style.ts).
installComputedStyle(window);

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
window.scrollTo = () => undefined;
