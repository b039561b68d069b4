/**
 * An async task's `data` (JSON text of the upstream's result) as the task list shows it. Suno
 * answers a song as an array of clips and lyrics as one object; anything else, or a text that
 * is not JSON, shows as no result. Read leniently: a missing or odd field is left out, never
 * trusted. Addresses are kept as sent: the cells decide what they link (`safeWebUrl`).
 */

/** A clip of a song. */
export interface MusicClip {
  id: string;
  title: string;
  /** submitted, queued, streaming, complete, error. */
  status: string;
  audioUrl: string;
  /** Seconds; null until Suno reports it. */
  duration: number | null;
  /** Why the clip failed; '' when it did not. */
  errorMessage: string;
}

export interface Lyrics {
  title: string;
  /** '' until the lyrics are written. */
  text: string;
}

export type TaskResult = { kind: 'music'; clips: MusicClip[] } | { kind: 'lyrics'; lyrics: Lyrics } | { kind: 'none' };

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function seconds(value: unknown): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(number) && number >= 0 ? number : null;
}

function clipOf(value: Json): MusicClip {
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  return {
    id: text(value.id),
    title: text(value.title),
    status: text(value.status),
    audioUrl: text(value.audio_url),
    duration: seconds(metadata.duration),
    errorMessage: text(metadata.error_message),
  };
}

export function parseTaskResult(data: string | undefined): TaskResult {
  if (!data) return { kind: 'none' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { kind: 'none' };
  }
  if (Array.isArray(parsed)) {
    const clips = parsed.filter(isRecord).map(clipOf);
    return clips.length > 0 ? { kind: 'music', clips } : { kind: 'none' };
  }
  if (isRecord(parsed) && ('text' in parsed || 'title' in parsed)) {
    return { kind: 'lyrics', lyrics: { title: text(parsed.title), text: text(parsed.text) } };
  }
  return { kind: 'none' };
}

/** A clip's length as m:ss (h:mm:ss from an hour). */
export function formatClipDuration(totalSeconds: number): string {
  const rounded = Math.round(totalSeconds);
  const hours = Math.floor(rounded / 3600);
  const minutes = Math.floor((rounded % 3600) / 60);
  const secondsPart = String(rounded % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${secondsPart}` : `${minutes}:${secondsPart}`;
}
