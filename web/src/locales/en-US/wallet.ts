import type zh from '../zh-CN/wallet';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
