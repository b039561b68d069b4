import type zh from '../zh-CN/settings-system';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
