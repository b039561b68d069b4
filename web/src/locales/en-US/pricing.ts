import type zh from '../zh-CN/pricing';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
