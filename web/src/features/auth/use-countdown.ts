import { useCallback, useEffect, useState } from 'react';

/**
 * Sending a verification code (register, email binding) or a reset email locks the button for
 * 30 seconds (the server locks resending too): docs/product.md section 4.
 */
export const RESEND_LOCK_SECONDS = 30;

/**
 * Seconds left of a resend lock; 0 when unlocked. Counted against a deadline, not by ticks, so
 * a throttled background tab still unlocks on time.
 */
export function useCountdown(): { remaining: number; start(seconds: number): void } {
  const [deadline, setDeadline] = useState(0);
  const [remaining, setRemaining] = useState(0);

  useEffect(() => {
    if (!deadline) return;
    const update = () => {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      setRemaining(left);
      if (left === 0) setDeadline(0);
    };
    update();
    const timer = setInterval(update, 250);
    return () => clearInterval(timer);
  }, [deadline]);

  const start = useCallback((seconds: number) => setDeadline(Date.now() + seconds * 1000), []);
  return { remaining, start };
}
