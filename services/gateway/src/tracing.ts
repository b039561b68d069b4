// main.ts's first import: tracing starts before the modules it instruments are loaded (packages/platform/src/tracing).
import { startTracing } from '@aigw/platform/tracing';

startTracing('gateway');
