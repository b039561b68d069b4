import type zh from '../zh-CN/tasks';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
