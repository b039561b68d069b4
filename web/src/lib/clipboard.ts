import { feedback } from '../app/feedback';

/**
 * Copies `text`; when the browser refuses (no permission, insecure context) the spec's
 * manual-copy dialog shows the text instead. Resolves to whether the clipboard took it.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('clipboard unavailable');
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    feedback.manualCopy(text);
    return false;
  }
}
