/**
 * Group commit for a bus consumer: a handler parks its item and waits; items that arrive within
 * `windowMs` of the first (or until `maxItems`) are applied together in one `apply` call, and
 * every handler of the group returns (its event is acknowledged) when that call resolved, or
 * throws its error (every event of the group is redelivered). So one transaction covers many
 * events and nothing is acknowledged before it is written. The consumer must take several
 * deliveries at once (SubscribeOptions.inFlight, at least `maxItems`), or a group never holds more
 * than one item.
 *
 * Only for effects that may be applied again on a redelivery (statistics, idempotent writes):
 * a group that fails is redelivered whole, items already written by an earlier try included.
 */
export interface GroupCommit<T> {
  /** Resolves once the group holding `item` was applied. */
  add(item: T): Promise<void>;
}

export function groupCommit<T>(apply: (items: T[]) => Promise<void>, options: { windowMs: number; maxItems: number }): GroupCommit<T> {
  let group: { items: T[]; done: Promise<void>; timer: NodeJS.Timeout; start: () => void } | null = null;

  const open = () => {
    let start!: () => void;
    const began = new Promise<void>((resolve) => (start = resolve));
    const items: T[] = [];
    const done = began.then(() => apply(items));
    // Handlers await `done`; a failure is theirs to report, not an unhandled rejection here.
    done.catch(() => undefined);
    const timer = setTimeout(() => close(), options.windowMs);
    return { items, done, timer, start };
  };
  const close = () => {
    if (!group) return;
    const closing = group;
    group = null;
    clearTimeout(closing.timer);
    closing.start();
  };

  return {
    add(item) {
      group ??= open();
      const { done } = group;
      group.items.push(item);
      if (group.items.length >= options.maxItems) close();
      return done;
    },
  };
}
