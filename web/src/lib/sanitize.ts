import DOMPurify from 'dompurify';
import { marked } from 'marked';

/**
 * Admin-written HTML and markdown (notice, home page, about, footer) pass an allowlist
 * sanitizer before they reach the page (rule R9): no scripts, no event handlers, no
 * javascript: URLs, no frames or forms.
 */
export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'iframe', 'form', 'input', 'button', 'textarea', 'select', 'object', 'embed'],
    FORBID_ATTR: ['style'],
  });
}

/** Markdown (or HTML, which markdown allows) to sanitized HTML. */
export function renderMarkdown(text: string): string {
  return sanitizeHtml(marked.parse(text, { async: false, gfm: true, breaks: true }));
}

/** Content that is only a URL is shown in a frame instead of as text. */
export function isUrl(text: string): boolean {
  return /^https?:\/\/\S+$/.test(text.trim());
}
