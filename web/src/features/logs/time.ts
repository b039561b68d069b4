import dayjs, { type Dayjs } from 'dayjs';

/** How times are shown in the log, drawing and task tables. */
export const DATE_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * A record's time as text. Log rows carry unix seconds; drawing tasks of the established
 * product carry milliseconds, so a value past the year 33658 in seconds is read as milliseconds.
 */
export function formatTimestamp(value: number | null | undefined): string {
  if (!value || value <= 0) return '';
  return dayjs(toMilliseconds(value)).format(DATE_TIME_FORMAT);
}

/** Seconds or milliseconds (see formatTimestamp) to milliseconds. */
export function toMilliseconds(value: number): number {
  return value >= 1e12 ? value : value * 1000;
}

/** Today's 00:00 local time, in ms. */
export function todayMidnight(now = Date.now()): number {
  return dayjs(now).startOf('day').valueOf();
}

/** A time window of the list screens, in ms. */
export interface TimeWindow {
  start: number;
  end: number;
}

/** docs/product.md section 9: usage logs start at today's 00:00 and end one hour ahead. */
export function defaultLogWindow(now = Date.now()): TimeWindow {
  return { start: todayMidnight(now), end: now + HOUR_MS };
}

/** docs/product.md section 9: drawing tasks start 30 days back and end one hour ahead. */
export function defaultDrawingWindow(now = Date.now()): TimeWindow {
  return { start: now - 30 * DAY_MS, end: now + HOUR_MS };
}

/** docs/product.md section 9: async tasks start at today's midnight (and end one hour ahead, like the other lists). */
export function defaultTaskWindow(now = Date.now()): TimeWindow {
  return { start: todayMidnight(now), end: now + HOUR_MS };
}

/** ms to the unix seconds the list routes take. */
export function toUnixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** A filter form's time range (the range picker's value); null when the user cleared it. */
export type TimeRange = [Dayjs, Dayjs] | null;

/** A default window as the range picker's value. */
export function rangeOf(window: TimeWindow): [Dayjs, Dayjs] {
  return [dayjs(window.start), dayjs(window.end)];
}

/** A range as the list routes' bounds in unix seconds; left out when the range was cleared. */
export function timestampsOf(range: TimeRange): { start_timestamp?: number; end_timestamp?: number } {
  return {
    start_timestamp: range ? toUnixSeconds(range[0].valueOf()) : undefined,
    end_timestamp: range ? toUnixSeconds(range[1].valueOf()) : undefined,
  };
}
