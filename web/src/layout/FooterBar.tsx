import { useEffect, useState } from 'react';
import { Layout, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useStatus } from '../app/hooks';

/** This open-source project, named by the default footer whatever the site is called. */
const PROJECT_NAME = 'AI Gateway';

/**
 * The admin's footer HTML, sanitized. The sanitizer (and the markdown renderer beside it) loads
 * only when a site has a footer of its own: most first loads need neither.
 */
function CustomFooter({ html }: { html: string }) {
  const [safeHtml, setSafeHtml] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void import('../lib/sanitize').then(({ sanitizeHtml }) => {
      if (current) setSafeHtml(sanitizeHtml(html));
    });
    return () => {
      current = false;
    };
  }, [html]);
  return safeHtml === null ? null : <div className="custom-footer" dangerouslySetInnerHTML={{ __html: safeHtml }} />;
}

/**
 * The admin's footer HTML (sanitized), or the default line naming this open-source project,
 * its upstreams and the server version. Follows the cached status, so it appears as soon as
 * the status arrives (the established product polls for it instead).
 */
export function FooterBar() {
  const intl = useIntl();
  const status = useStatus();
  const footerHtml = status?.footer_html?.trim();

  return (
    <Layout.Footer style={{ textAlign: 'center', padding: '16px 24px' }}>
      {footerHtml ? (
        <CustomFooter html={footerHtml} />
      ) : (
        <Typography.Text type="secondary">
          {intl.formatMessage(
            { id: 'layout.footer.default', defaultMessage: '{name} {version} · 兼容 New API 与 One API 的开源 AI 模型网关' },
            { name: PROJECT_NAME, version: status?.version ? `v${status.version}` : '' },
          )}
        </Typography.Text>
      )}
    </Layout.Footer>
  );
}
