import { useCallback, useEffect, useState } from 'react';

/** The spec's resend lock: 30 seconds after a code was sent. */
export const RESEND_LOCK_SECONDS = 30;

/** A per-second countdown: `start(n)` locks for n seconds; `seconds` is what remains. */
export function useCountdown() {
  const [seconds, setSeconds] = useState(0);
  const active = seconds > 0;

  useEffect(() => {
    if (!active) return;
    // One interval for the whole lock; unmounting (or reaching zero) stops it.
    const timer = setInterval(() => setSeconds((left) => Math.max(0, left - 1)), 1000);
    return () => clearInterval(timer);
  }, [active]);

  const start = useCallback((from: number) => setSeconds(from), []);
  return { seconds, active, start };
}
