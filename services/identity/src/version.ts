/** Product version, shown in /api/status. */
export const version = '0.1.0';
