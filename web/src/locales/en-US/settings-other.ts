import type zh from '../zh-CN/settings-other';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
