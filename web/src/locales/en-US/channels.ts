import type zh from '../zh-CN/channels';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
