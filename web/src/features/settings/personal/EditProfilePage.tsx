import { Card, Skeleton } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { EditUserForm } from '../../users/EditUserForm';
import { useSelfQuery } from '../../self/api';

/** /user/edit: the signed-in user edits their own username and display name, then returns to /setting. */
export function EditProfilePage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const { data: user, fulfilledTimeStamp } = useSelfQuery(undefined, { refetchOnMountOrArgChange: true });
  const back = () => void navigate('/setting');

  return (
    <Card title={intl.formatMessage({ id: 'pages.settings.personal.profile.title', defaultMessage: '编辑个人信息' })} style={{ maxWidth: 600 }}>
      {/* Keyed by the answer, so the form starts from the server's values. */}
      {user ? <EditUserForm key={fulfilledTimeStamp} user={user} scope="self" onDone={back} /> : <Skeleton active />}
    </Card>
  );
}

export default EditProfilePage;
