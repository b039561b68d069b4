import type zh from '../zh-CN/chat';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
