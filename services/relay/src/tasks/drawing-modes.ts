import { DRAWING_MODES, type DrawingMode } from '@aigw/contracts';

/**
 * A key's drawing modes (docs/architecture.md section 5.11): the Midjourney speed modes a submit
 * asks for, and whether the key may draw in them. Pure: the route prefix and the body in, a
 * refusal's text out.
 */

/** midjourney-proxy's return code for a request it will not take as sent (its VALIDATION_ERROR). */
export const MJ_VALIDATION_CODE = 4;

const MODE_FLAG = /--(fast|relax|turbo)\b/g;

/**
 * The modes a submit asks for: its route prefix's (`/mj-relax/mj` -> relax) and every
 * `--fast`, `--relax`, `--turbo` in its prompt (the upstream reads those whatever the prefix).
 */
export function requestedModes(prefix: string, body: Record<string, unknown>): Set<DrawingMode> {
  const modes = new Set<DrawingMode>();
  const fromPrefix = /^\/mj-(fast|relax|turbo)\//.exec(`${prefix}/`)?.[1];
  if (fromPrefix) modes.add(fromPrefix as DrawingMode);
  if (typeof body.prompt === 'string') for (const match of body.prompt.matchAll(MODE_FLAG)) modes.add(match[1] as DrawingMode);
  return modes;
}

/**
 * Why a key limited to `allowed` may not send this submit, or null when it may. A submit naming
 * no mode draws in whatever the upstream's account defaults to, so a limited key must name one.
 */
export function drawingModeRefusal(allowed: ReadonlySet<DrawingMode> | null | undefined, requested: ReadonlySet<DrawingMode>): string | null {
  if (!allowed || allowed.size === 0) return null;
  const allowedText = DRAWING_MODES.filter((mode) => allowed.has(mode)).join(', ');
  const example = DRAWING_MODES.find((mode) => allowed.has(mode))!;
  if (requested.size === 0) {
    return `this API key may draw only in ${allowedText} mode: send the request under /mj-${example}/mj or add --${example} to the prompt`;
  }
  const refused = DRAWING_MODES.filter((mode) => requested.has(mode) && !allowed.has(mode));
  if (refused.length === 0) return null;
  return `this API key may not draw in ${refused.join(', ')} mode; it may draw in ${allowedText} mode`;
}
