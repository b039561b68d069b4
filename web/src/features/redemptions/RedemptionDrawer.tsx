import { useIntl } from 'react-intl';
import { FormDrawer } from '../../components/FormDrawer';
import { useRedemptionQuery } from './api';
import { RedemptionForm } from './RedemptionForm';

interface RedemptionDrawerProps {
  open: boolean;
  /** The code to update; none to create codes. */
  redemptionId?: number;
  onClose: () => void;
}

/** The side panel that creates or updates redemption codes; the form mounts once the code has loaded. */
export function RedemptionDrawer({ open, redemptionId, onClose }: RedemptionDrawerProps) {
  const intl = useIntl();
  const editing = redemptionId !== undefined;
  const redemption = useRedemptionQuery(redemptionId ?? 0, { skip: !open || !editing, refetchOnMountOrArgChange: true });
  const ready = !editing || (redemption.data?.id === redemptionId && !redemption.isFetching);

  return (
    <FormDrawer
      open={open}
      onClose={onClose}
      title={
        editing
          ? intl.formatMessage({ id: 'pages.redemptions.form.titleEdit', defaultMessage: '更新兑换码信息' })
          : intl.formatMessage({ id: 'pages.redemptions.form.titleCreate', defaultMessage: '创建新的兑换码' })
      }
      loading={!ready}
      failed={editing && redemption.isError}
    >
      <RedemptionForm redemption={editing ? redemption.data : undefined} onDone={onClose} />
    </FormDrawer>
  );
}
