import { isUrl, renderMarkdown } from '../lib/sanitize';

/**
 * Admin-written content: a URL is shown in a frame, anything else as sanitized markdown
 * (HTML included). Never raw HTML (rule R9).
 */
export function RichContent({ content, title }: { content: string; title: string }) {
  if (isUrl(content)) {
    return (
      <iframe
        src={content.trim()}
        title={title}
        style={{ width: '100%', height: 'calc(100vh - 200px)', border: 'none' }}
        sandbox="allow-scripts allow-same-origin allow-popups allow-forms"
      />
    );
  }
  return <div className="rich-content" dangerouslySetInnerHTML={{ __html: renderMarkdown(content) }} />;
}
