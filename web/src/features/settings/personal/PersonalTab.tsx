import { useEffect } from 'react';
import { Col, Row } from 'antd';
import { useCurrentUser } from '../../../app/hooks';
import { userUpdated } from '../../../app/session';
import { useAppDispatch } from '../../../app/store';
import { useSelfQuery } from '../../self/api';
import { BalanceCard } from './BalanceCard';
import { BindingsCard } from './BindingsCard';
import { InviteCard } from './InviteCard';
import { ModelsCard } from './ModelsCard';
import { NotificationCard } from './NotificationCard';
import { RateLimitsCard } from './RateLimitsCard';
import { SecurityCard } from './SecurityCard';
import { SecondFactorCard } from './SecondFactorCard';

/** /setting, tab personal: the signed-in user's own account (docs/product.md section 4). */
export function PersonalTab() {
  const dispatch = useAppDispatch();
  const storedUser = useCurrentUser();
  // Skipped once signed out: right after deleting the account nothing here may ask the server again.
  const { data: fresh } = useSelfQuery(undefined, { skip: !storedUser });

  // The stored user (header, guards, other screens) follows the fresh record.
  useEffect(() => {
    if (fresh) dispatch(userUpdated(fresh));
  }, [dispatch, fresh]);

  // Signed out (the moment after deletion, before the route changes): the cards and their queries unmount.
  if (!storedUser) return null;
  const user = fresh ?? storedUser;

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={12}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <BalanceCard user={user} />
          </Col>
          <Col span={24}>
            <InviteCard user={user} />
          </Col>
          <Col span={24}>
            <SecurityCard user={user} />
          </Col>
          <Col span={24}>
            <SecondFactorCard />
          </Col>
        </Row>
      </Col>
      <Col xs={24} xl={12}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <BindingsCard user={user} />
          </Col>
          <Col span={24}>
            <NotificationCard />
          </Col>
          <Col span={24}>
            <ModelsCard />
          </Col>
          {/* From the fresh record only: a user stored before limits existed has no set to show. */}
          {fresh && (
            <Col span={24}>
              <RateLimitsCard user={fresh} />
            </Col>
          )}
        </Row>
      </Col>
    </Row>
  );
}

export default PersonalTab;
