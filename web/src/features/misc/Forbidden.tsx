import { Button, Result } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';

/** An admin screen opened by a user without the role. */
export function Forbidden() {
  const intl = useIntl();
  const navigate = useNavigate();
  return (
    <Result
      status="403"
      title={intl.formatMessage({ id: 'errors.forbidden.title', defaultMessage: '无权访问' })}
      subTitle={intl.formatMessage({ id: 'errors.forbidden.description', defaultMessage: '您没有权限访问此页面' })}
      extra={
        <Button type="primary" onClick={() => void navigate('/')}>
          {intl.formatMessage({ id: 'errors.backHome', defaultMessage: '返回首页' })}
        </Button>
      }
    />
  );
}
