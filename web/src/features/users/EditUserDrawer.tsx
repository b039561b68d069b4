import { Alert } from 'antd';
import { skipToken } from '@reduxjs/toolkit/query';
import { useIntl } from 'react-intl';
import { FormDrawer } from '../../components/FormDrawer';
import { useUserByIdQuery } from './api';
import { EditUserForm } from './EditUserForm';

interface Props {
  /** The user being edited; null when closed. */
  id: number | null;
  onClose: () => void;
}

/** Edit user (admin): loads GET /api/user/{id} fresh each time it opens; a failed load says why here. */
export function EditUserDrawer({ id, onClose }: Props) {
  const intl = useIntl();
  const { data, error, isFetching, fulfilledTimeStamp } = useUserByIdQuery(id ?? skipToken, { refetchOnMountOrArgChange: true });

  return (
    <FormDrawer
      open={id !== null}
      title={intl.formatMessage({ id: 'pages.users.edit.title', defaultMessage: '编辑用户' })}
      onClose={onClose}
      loading={!error && (!data || data.id !== id || isFetching)}
    >
      {error ? (
        <Alert type="error" showIcon title={error.message} />
      ) : (
        // Keyed by the answer, so each load starts a fresh form with the server's values.
        data && <EditUserForm key={`${data.id}-${fulfilledTimeStamp}`} user={data} onDone={onClose} />
      )}
    </FormDrawer>
  );
}
