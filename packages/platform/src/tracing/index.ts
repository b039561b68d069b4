export {
  activeTracer,
  currentTraceparent,
  failSpan,
  inSpan,
  runInSpan,
  spanTraceparent,
  startSpan,
  startTracing,
  stopTracing,
  traceIds,
  tracingEnabled,
} from './tracing.js';
export type { Attributes, Span } from './tracing.js';
