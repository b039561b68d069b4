import { useState } from 'react';
import { Button, Modal } from 'antd';
import { useIntl } from 'react-intl';
import { RichContent } from '../../components/RichContent';
import { readText, storageKeys, write } from '../../lib/storage';
import { useGetNoticeQuery } from './api';

const today = () => new Date().toDateString();

/** The admin's notice (sanitized markdown), once a day unless closed for today. */
export function NoticeModal() {
  const intl = useIntl();
  const { data: notice } = useGetNoticeQuery();
  const [closed, setClosed] = useState(() => readText(storageKeys.noticeClosedOn) === today());
  const open = !closed && Boolean(notice?.trim());

  const closeForToday = () => {
    write(storageKeys.noticeClosedOn, today());
    setClosed(true);
  };

  return (
    <Modal
      open={open}
      title={intl.formatMessage({ id: 'pages.home.notice', defaultMessage: '系统公告' })}
      onCancel={() => setClosed(true)}
      footer={[
        <Button key="today" onClick={closeForToday}>
          {intl.formatMessage({ id: 'pages.home.notice.today', defaultMessage: '今日关闭' })}
        </Button>,
        <Button key="close" type="primary" onClick={() => setClosed(true)}>
          {intl.formatMessage({ id: 'common.close', defaultMessage: '关闭' })}
        </Button>,
      ]}
    >
      {notice && <RichContent content={notice} title="notice" />}
    </Modal>
  );
}
