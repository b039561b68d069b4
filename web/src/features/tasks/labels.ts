import { defineMessages, type MessageDescriptor } from 'react-intl';
import type { Label } from '../../components/LabelTag';

const unknown = defineMessages({ label: { id: 'pages.tasks.unknown', defaultMessage: '未知' } }).label;

const actions = defineMessages({
  IMAGINE: { id: 'pages.drawing.action.imagine', defaultMessage: '绘图' },
  UPSCALE: { id: 'pages.drawing.action.upscale', defaultMessage: '放大' },
  VARIATION: { id: 'pages.drawing.action.variation', defaultMessage: '变换' },
  HIGH_VARIATION: { id: 'pages.drawing.action.highVariation', defaultMessage: '强变换' },
  LOW_VARIATION: { id: 'pages.drawing.action.lowVariation', defaultMessage: '弱变换' },
  PAN: { id: 'pages.drawing.action.pan', defaultMessage: '平移' },
  DESCRIBE: { id: 'pages.drawing.action.describe', defaultMessage: '图生文' },
  BLEND: { id: 'pages.drawing.action.blend', defaultMessage: '图混合' },
  UPLOAD: { id: 'pages.drawing.action.upload', defaultMessage: '上传文件' },
  SHORTEN: { id: 'pages.drawing.action.shorten', defaultMessage: '缩词' },
  REROLL: { id: 'pages.drawing.action.reroll', defaultMessage: '重绘' },
  INPAINT: { id: 'pages.drawing.action.inpaint', defaultMessage: '局部重绘-提交' },
  ZOOM: { id: 'pages.drawing.action.zoom', defaultMessage: '变焦' },
  CUSTOM_ZOOM: { id: 'pages.drawing.action.customZoom', defaultMessage: '自定义变焦-提交' },
  MODAL: { id: 'pages.drawing.action.modal', defaultMessage: '窗口处理' },
  SWAP_FACE: { id: 'pages.drawing.action.swapFace', defaultMessage: '换脸' },
});

const actionColors: Record<string, string> = {
  IMAGINE: 'blue',
  UPSCALE: 'orange',
  VARIATION: 'purple',
  HIGH_VARIATION: 'purple',
  LOW_VARIATION: 'purple',
  PAN: 'cyan',
  DESCRIBE: 'gold',
  BLEND: 'lime',
  UPLOAD: 'blue',
  SHORTEN: 'magenta',
  REROLL: 'geekblue',
  INPAINT: 'volcano',
  ZOOM: 'cyan',
  CUSTOM_ZOOM: 'cyan',
  MODAL: 'green',
  SWAP_FACE: 'green',
};

/** docs/product.md section 9: the drawing actions. */
export function drawingAction(action: string): Label {
  const label = (actions as Record<string, MessageDescriptor>)[action];
  return label ? { label, color: actionColors[action] ?? 'default' } : { label: unknown, color: 'default' };
}

const codes = defineMessages({
  submitted: { id: 'pages.drawing.code.submitted', defaultMessage: '已提交' },
  waiting: { id: 'pages.drawing.code.waiting', defaultMessage: '等待中' },
  duplicate: { id: 'pages.drawing.code.duplicate', defaultMessage: '重复提交' },
  notSubmitted: { id: 'pages.drawing.code.notSubmitted', defaultMessage: '未提交' },
});

/** docs/product.md section 9: submit result codes 1 submitted, 21 waiting, 22 duplicate, 0 not submitted. */
export function submitResult(code: number): Label {
  switch (code) {
    case 1:
      return { label: codes.submitted, color: 'green' };
    case 21:
      return { label: codes.waiting, color: 'lime' };
    case 22:
      return { label: codes.duplicate, color: 'orange' };
    case 0:
      return { label: codes.notSubmitted, color: 'gold' };
    default:
      return { label: unknown, color: 'default' };
  }
}

const statuses = defineMessages({
  SUCCESS: { id: 'pages.tasks.status.success', defaultMessage: '成功' },
  NOT_START: { id: 'pages.tasks.status.notStart', defaultMessage: '未启动' },
  SUBMITTED: { id: 'pages.tasks.status.submitted', defaultMessage: '队列中' },
  IN_PROGRESS: { id: 'pages.tasks.status.inProgress', defaultMessage: '执行中' },
  FAILURE: { id: 'pages.tasks.status.failure', defaultMessage: '失败' },
  MODAL: { id: 'pages.drawing.status.modal', defaultMessage: '窗口等待' },
  QUEUED: { id: 'pages.tasks.status.queued', defaultMessage: '排队中' },
  UNKNOWN: { id: 'pages.tasks.status.unknown', defaultMessage: '未知' },
  SUBMITTING: { id: 'pages.tasks.status.submitting', defaultMessage: '正在提交' },
});

const statusColors: Record<string, string> = {
  SUCCESS: 'green',
  NOT_START: 'default',
  SUBMITTED: 'gold',
  IN_PROGRESS: 'blue',
  FAILURE: 'red',
  MODAL: 'gold',
  QUEUED: 'orange',
  UNKNOWN: 'default',
};

/** docs/product.md section 9: SUCCESS, NOT_START, SUBMITTED (queued), IN_PROGRESS, FAILURE, MODAL (waiting window). */
export function drawingStatus(status: string): Label {
  if (status in statusColors && status !== 'QUEUED' && status !== 'UNKNOWN') {
    return { label: (statuses as Record<string, MessageDescriptor>)[status]!, color: statusColors[status]! };
  }
  return { label: unknown, color: 'default' };
}

/** docs/product.md section 9: SUCCESS, NOT_START, SUBMITTED, IN_PROGRESS, FAILURE, QUEUED, UNKNOWN, and empty while submitting. */
export function taskStatus(status: string): Label {
  if (status === '') return { label: statuses.SUBMITTING, color: 'default' };
  if (status in statusColors && status !== 'MODAL') {
    return { label: (statuses as Record<string, MessageDescriptor>)[status]!, color: statusColors[status]! };
  }
  return { label: unknown, color: 'default' };
}

const taskActions = defineMessages({
  MUSIC: { id: 'pages.tasks.action.music', defaultMessage: '音乐' },
  LYRICS: { id: 'pages.tasks.action.lyrics', defaultMessage: '歌词' },
});

/** docs/product.md section 9: the async task actions MUSIC and LYRICS. */
export function taskAction(action: string): Label {
  if (action === 'MUSIC') return { label: taskActions.MUSIC, color: 'blue' };
  if (action === 'LYRICS') return { label: taskActions.LYRICS, color: 'magenta' };
  return { label: unknown, color: 'default' };
}

/** Platforms by their wire name (docs/product.md section 9: suno); an unknown one shows as sent. */
export const platformNames: Record<string, string> = { suno: 'Suno' };
