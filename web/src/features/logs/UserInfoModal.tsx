import { Alert, Descriptions, Modal, Spin, Tag } from 'antd';
import { useText } from '../../app/use-text';
import { useUserByIdQuery } from '../users/api';
import { useBalanceFormat } from '../users/use-balance-format';

/** The admin's popup from a log row: GET /api/user/{id}, its name, balance, usage and group. */
export function UserInfoModal({ userId, onClose }: { userId: number | null; onClose: () => void }) {
  const format = useBalanceFormat();
  const { data: user, isFetching, error } = useUserByIdQuery(userId ?? 0, { skip: userId === null });
  const t = useText();

  const body = () => {
    // The user query is silent (its screens say why in place).
    if (error) return <Alert type="error" showIcon title={error.message} />;
    if (isFetching || !user) return <Spin />;
    return (
      <Descriptions
        column={1}
        size="small"
        items={[
          { key: 'username', label: t('pages.logs.user.username', '用户名'), children: user.username },
          { key: 'displayName', label: t('pages.logs.user.displayName', '显示名称'), children: user.display_name },
          { key: 'quota', label: t('pages.logs.user.quota', '余额'), children: format.quota(user.quota) },
          { key: 'usedQuota', label: t('pages.logs.user.usedQuota', '已用额度'), children: format.quota(user.used_quota) },
          { key: 'requestCount', label: t('pages.logs.user.requestCount', '请求次数'), children: format.count(user.request_count) },
          { key: 'group', label: t('pages.logs.user.group', '分组'), children: <Tag>{user.group}</Tag> },
        ]}
      />
    );
  };

  return (
    <Modal open={userId !== null} title={t('pages.logs.user.title', '用户信息')} onCancel={onClose} footer={null} destroyOnHidden>
      {userId !== null && body()}
    </Modal>
  );
}
