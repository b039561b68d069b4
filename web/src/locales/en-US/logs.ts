import type zh from '../zh-CN/logs';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
