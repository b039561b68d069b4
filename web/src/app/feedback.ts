import type { MessageDescriptor } from 'react-intl';

/**
 * Toasts and dialogs for code outside React (the API base query, the clipboard helper). The
 * `FeedbackBridge` component connects these to antd's App context and the current locale;
 * until it mounts (and in unit tests without it) calls are dropped.
 */
export type FeedbackText = string | MessageDescriptor;

export interface Feedback {
  error(text: FeedbackText): void;
  success(text: FeedbackText): void;
  warning(text: FeedbackText): void;
  /** The "cannot copy, copy manually" dialog showing `text` (docs/product.md section 11). */
  manualCopy(text: string): void;
}

const dropped: Feedback = { error() {}, success() {}, warning() {}, manualCopy() {} };
let current: Feedback = dropped;

export function setFeedback(feedback: Feedback | null): void {
  current = feedback ?? dropped;
}

export const feedback: Feedback = {
  error: (text) => current.error(text),
  success: (text) => current.success(text),
  warning: (text) => current.warning(text),
  manualCopy: (text) => current.manualCopy(text),
};
