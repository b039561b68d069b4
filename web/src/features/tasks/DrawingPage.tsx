import type { ColumnsType } from 'antd/es/table';
import { useText } from '../../app/use-text';
import { LabelTag } from '../../components/LabelTag';
import { defaultDrawingWindow } from '../logs/time';
import type { DrawingTask } from '@aigw/contracts';
import { useDrawingsQuery } from './api';
import { ImageCell, TextCell } from './cells';
import { drawingAction, drawingStatus, submitResult } from './labels';
import { TaskListCard } from './TaskListCard';
import { useTaskColumns } from './use-task-columns';
import { useTaskList } from './use-task-list';

/** /midjourney: drawing tasks; admins see everyone's (/api/mj/) and the channel. */
export function DrawingPage() {
  const list = useTaskList(defaultDrawingWindow);
  const query = useDrawingsQuery(list.args);
  const shared = useTaskColumns<DrawingTask>(list.isAdmin);
  const t = useText();

  const columns: ColumnsType<DrawingTask> = [
    shared.submitTime,
    shared.duration,
    ...shared.channel,
    shared.action(drawingAction),
    shared.taskId('mj_id'),
    { title: t('pages.drawing.column.code', '提交结果'), dataIndex: 'code', key: 'code', render: (code: number) => <LabelTag label={submitResult(code)} /> },
    shared.status(drawingStatus),
    shared.progress,
    { title: t('pages.drawing.column.image', '结果图片'), dataIndex: 'image_url', key: 'image', render: (url: string) => <ImageCell url={url} /> },
    { title: t('pages.drawing.column.prompt', 'Prompt'), dataIndex: 'prompt', key: 'prompt', render: (text: string) => <TextCell text={text} /> },
    { title: t('pages.drawing.column.promptEn', 'PromptEn'), dataIndex: 'prompt_en', key: 'promptEn', render: (text: string) => <TextCell text={text} /> },
    shared.failReason,
  ];

  return <TaskListCard title={t('pages.drawing.title', '绘图')} list={list} query={query} columns={columns} rowKey={(task) => task.id ?? task.mj_id} />;
}

export default DrawingPage;
