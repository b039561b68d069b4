import { Drawer, Spin } from 'antd';
import { useIntl } from 'react-intl';
import { useDrawerSize } from '../../app/media';
import { useRedemptionQuery } from './api';
import { RedemptionForm } from './RedemptionForm';

interface RedemptionDrawerProps {
  open: boolean;
  /** The code to update; none to create codes. */
  redemptionId?: number;
  onClose: () => void;
}

/** The side panel that creates or updates redemption codes. */
export function RedemptionDrawer({ open, redemptionId, onClose }: RedemptionDrawerProps) {
  const intl = useIntl();
  const size = useDrawerSize();
  const editing = redemptionId !== undefined;
  const redemption = useRedemptionQuery(redemptionId ?? 0, { skip: !open || !editing, refetchOnMountOrArgChange: true });
  const ready = !editing || (redemption.data?.id === redemptionId && !redemption.isFetching);

  return (
    <Drawer
      open={open}
      onClose={onClose}
      size={size}
      destroyOnHidden
      title={editing
        ? intl.formatMessage({ id: 'pages.redemptions.form.titleEdit', defaultMessage: '更新兑换码信息' })
        : intl.formatMessage({ id: 'pages.redemptions.form.titleCreate', defaultMessage: '创建新的兑换码' })}
    >
      {/* A code that failed to load (the server's message is shown) leaves the panel empty. */}
      {open && !(editing && redemption.isError) && (ready
        ? <RedemptionForm redemption={editing ? redemption.data : undefined} onDone={onClose} />
        : <Spin />)}
    </Drawer>
  );
}
