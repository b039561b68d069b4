import { Layout, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useStatus } from '../app/hooks';
import { sanitizeHtml } from '../lib/sanitize';

/** This open-source project, named by the default footer whatever the site is called. */
const PROJECT_NAME = 'AI Gateway';

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
        <div className="custom-footer" dangerouslySetInnerHTML={{ __html: sanitizeHtml(footerHtml) }} />
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
