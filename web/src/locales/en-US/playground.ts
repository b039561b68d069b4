import type zh from '../zh-CN/playground';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
