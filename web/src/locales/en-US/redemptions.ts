import type zh from '../zh-CN/redemptions';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
