import type zh from '../zh-CN/settings-operation';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
