import type zh from '../zh-CN/tokens';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
