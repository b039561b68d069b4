import { feedback } from '../app/feedback';

/**
 * Copies `text`; when the browser refuses (no permission, insecure context) the manual-copy dialog
 * (docs/product.md section 11) shows the text instead. Resolves to whether the clipboard took it.
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
