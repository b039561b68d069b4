import { Alert, Drawer, Spin } from 'antd';
import { skipToken } from '@reduxjs/toolkit/query';
import { useIntl } from 'react-intl';
import { useDrawerSize } from '../../app/media';
import { useUserByIdQuery } from './api';
import { EditUserForm } from './EditUserForm';

interface Props {
  /** The user being edited; null when closed. */
  id: number | null;
  onClose: () => void;
}

/** Edit user (admin): loads GET /api/user/{id} fresh each time it opens. */
export function EditUserDrawer({ id, onClose }: Props) {
  const intl = useIntl();
  const size = useDrawerSize();
  const { data, error, isFetching, fulfilledTimeStamp } = useUserByIdQuery(id ?? skipToken, { refetchOnMountOrArgChange: true });

  let body;
  if (error) body = <Alert type="error" showIcon title={'message' in error ? error.message : String(error)} />;
  else if (!data || data.id !== id || isFetching) body = <Spin style={{ display: 'block', margin: '48px auto' }} />;
  // Keyed by the answer, so each load starts a fresh form with the server's values.
  else body = <EditUserForm key={`${data.id}-${fulfilledTimeStamp}`} user={data} onDone={onClose} />;

  return (
    <Drawer
      open={id !== null}
      size={size}
      destroyOnHidden
      title={intl.formatMessage({ id: 'pages.users.edit.title', defaultMessage: '编辑用户' })}
      onClose={onClose}
    >
      {body}
    </Drawer>
  );
}
