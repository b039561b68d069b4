import type zh from '../zh-CN/dashboard';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
