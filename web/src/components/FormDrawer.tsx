import type { ReactNode } from 'react';
import { Drawer, Spin } from 'antd';
import { useDrawerSize } from '../app/media';

interface FormDrawerProps {
  open: boolean;
  title: string;
  onClose(): void;
  /** What the form shows is still loading: a spinner stands in. */
  loading?: boolean;
  /** What the form shows failed to load (the server's message is already shown): the panel stays empty. */
  failed?: boolean;
  /** The form; mounted fresh each time the drawer opens. */
  children: ReactNode;
}

/** The side panel that creates or edits a record: 600 wide on desktop, full width on mobile. */
export function FormDrawer({ open, title, onClose, loading = false, failed = false, children }: FormDrawerProps) {
  const size = useDrawerSize();
  return (
    <Drawer open={open} onClose={onClose} size={size} destroyOnHidden title={title}>
      {open && !failed && (loading ? <Spin /> : children)}
    </Drawer>
  );
}
