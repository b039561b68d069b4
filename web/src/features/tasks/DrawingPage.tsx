import { Card, Flex, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useIntl } from 'react-intl';
import { defaultDrawingWindow, formatTimestamp } from '../logs/time';
import { useDrawingsQuery, type DrawingTask } from './api';
import { DurationTag, ImageCell, LabelTag, ProgressCell, TextCell } from './cells';
import { drawingAction, drawingStatus, submitResult } from './labels';
import { TaskFilters } from './TaskFilters';
import { useTaskList } from './use-task-list';

/** /midjourney: drawing tasks; admins see everyone's (/api/mj/) and the channel. */
export function DrawingPage() {
  const intl = useIntl();
  const { isAdmin, initialValues, args, search, pagination } = useTaskList(defaultDrawingWindow);
  const { data, isFetching, refetch } = useDrawingsQuery(args);
  const t = (id: string, defaultMessage: string) => intl.formatMessage({ id, defaultMessage });

  const columns: ColumnsType<DrawingTask> = [
    { title: t('pages.drawing.column.submitTime', '提交时间'), dataIndex: 'submit_time', key: 'submitTime', render: (value: number) => formatTimestamp(value) },
    {
      title: t('pages.drawing.column.duration', '花费时间'),
      key: 'duration',
      render: (_: unknown, task) => <DurationTag submit={task.submit_time} finish={task.finish_time} />,
    },
    ...(isAdmin
      ? [{
        title: t('pages.drawing.column.channel', '渠道'),
        dataIndex: 'channel_id',
        key: 'channel',
        render: (channel: number) => (channel ? <Tag color="blue">{channel}</Tag> : null),
      }]
      : []),
    { title: t('pages.drawing.column.action', '类型'), dataIndex: 'action', key: 'action', render: (action: string) => <LabelTag label={drawingAction(action)} /> },
    { title: t('pages.drawing.column.taskId', '任务ID'), dataIndex: 'mj_id', key: 'taskId' },
    { title: t('pages.drawing.column.code', '提交结果'), dataIndex: 'code', key: 'code', render: (code: number) => <LabelTag label={submitResult(code)} /> },
    { title: t('pages.drawing.column.status', '任务状态'), dataIndex: 'status', key: 'status', render: (status: string) => <LabelTag label={drawingStatus(status)} /> },
    { title: t('pages.drawing.column.progress', '进度'), dataIndex: 'progress', key: 'progress', render: (progress: string) => <ProgressCell progress={progress} /> },
    { title: t('pages.drawing.column.image', '结果图片'), dataIndex: 'image_url', key: 'image', render: (url: string) => <ImageCell url={url} /> },
    { title: t('pages.drawing.column.prompt', 'Prompt'), dataIndex: 'prompt', key: 'prompt', render: (text: string) => <TextCell text={text} /> },
    { title: t('pages.drawing.column.promptEn', 'PromptEn'), dataIndex: 'prompt_en', key: 'promptEn', render: (text: string) => <TextCell text={text} /> },
    { title: t('pages.drawing.column.failReason', '失败原因'), dataIndex: 'fail_reason', key: 'failReason', render: (text: string) => <TextCell text={text} /> },
  ];

  return (
    <Card title={t('pages.drawing.title', '绘图')}>
      <Flex vertical gap={16}>
        <TaskFilters admin={isAdmin} initialValues={initialValues} searching={isFetching} onSearch={(values) => { if (search(values)) void refetch(); }} />
        <Table<DrawingTask>
          rowKey={(task) => task.id ?? task.mj_id}
          size="small"
          scroll={{ x: 'max-content' }}
          columns={columns}
          dataSource={data?.items ?? []}
          loading={isFetching}
          pagination={pagination(data?.total ?? 0)}
        />
      </Flex>
    </Card>
  );
}

export default DrawingPage;
