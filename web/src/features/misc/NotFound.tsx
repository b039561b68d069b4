import { Button, Result } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';

/** Any path the console does not know. */
export function NotFound() {
  const intl = useIntl();
  const navigate = useNavigate();
  return (
    <Result
      status="404"
      title={intl.formatMessage({ id: 'errors.notFound.title', defaultMessage: '页面不存在，请检查你的浏览器地址是否正确' })}
      subTitle={intl.formatMessage({ id: 'errors.notFound.description', defaultMessage: '你访问的页面不存在' })}
      extra={
        <Button type="primary" onClick={() => void navigate('/')}>
          {intl.formatMessage({ id: 'errors.backHome', defaultMessage: '返回首页' })}
        </Button>
      }
    />
  );
}
