import { useIntl } from 'react-intl';
import { FormDrawer } from '../../components/FormDrawer';
import { useLimitUse } from '../limits/api';
import { useSelfGroupsQuery, useSelfModelsQuery } from '../self/api';
import { useTokenQuery } from './api';
import { TokenForm } from './TokenForm';

interface TokenDrawerProps {
  open: boolean;
  /** The token to update; none to create one. */
  tokenId?: number;
  onClose: () => void;
}

/** The side panel that creates or updates a token; the form mounts once what it shows has loaded. */
export function TokenDrawer({ open, tokenId, onClose }: TokenDrawerProps) {
  const intl = useIntl();
  const editing = tokenId !== undefined;
  const token = useTokenQuery(tokenId ?? 0, { skip: !open || !editing, refetchOnMountOrArgChange: true });
  const groups = useSelfGroupsQuery(undefined, { skip: !open });
  const models = useSelfModelsQuery(undefined, { skip: !open });
  // What the key's limits count now, shown under each; the form does not wait for it.
  const use = useLimitUse(open && editing ? { scope: 'key', id: tokenId } : null);
  const ready = !groups.isLoading && (!editing || (token.data?.id === tokenId && !token.isFetching));

  return (
    <FormDrawer
      open={open}
      onClose={onClose}
      title={
        editing
          ? intl.formatMessage({ id: 'pages.tokens.form.titleEdit', defaultMessage: '更新令牌信息' })
          : intl.formatMessage({ id: 'pages.tokens.form.titleCreate', defaultMessage: '创建新的令牌' })
      }
      loading={!ready}
      failed={editing && token.isError}
    >
      <TokenForm token={editing ? token.data : undefined} use={use} groups={groups.data ?? {}} models={models.data ?? []} onDone={onClose} />
    </FormDrawer>
  );
}
