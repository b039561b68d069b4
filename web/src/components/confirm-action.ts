/**
 * Popconfirm's onConfirm for an async action. antd waits for a promise its onConfirm returns (the
 * OK button spins until it settles) although the prop's type says void. The action handles its
 * own failures, as every caller's does (toast, then resolve): a rejection would go unhandled.
 */
export function confirmAction(action: () => Promise<unknown>): () => void {
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- antd awaits it (see above): the one place that says so
  return action;
}
