import type zh from '../zh-CN/users';
import type { MessagesOf } from '../types';

export default {} satisfies MessagesOf<typeof zh>;
