import { z } from 'zod';

/*
 * The shapes of a setting read from the environment (a string, or absent for its default), one
 * place for every service's config (@fxdesk/core gives them on) and the broker's venue settings,
 * so the settings of the whole stack read and document alike.
 */

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/** A boolean setting: true/false, 1/0, yes/no, on/off (any case). */
export function envBoolean(defaultValue: boolean) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => TRUE_WORDS.has(v) || FALSE_WORDS.has(v), { message: 'expected true or false' })
    .transform((v) => TRUE_WORDS.has(v))
    .prefault(defaultValue ? 'true' : 'false');
}

/** An integer setting within bounds. */
export function envInt(defaultValue: number, bounds: { min?: number; max?: number } = {}) {
  let n = z.number().int({ message: 'expected an integer' });
  if (bounds.min !== undefined) n = n.min(bounds.min);
  if (bounds.max !== undefined) n = n.max(bounds.max);
  return z
    .string()
    .regex(/^-?\d+$/, { message: 'expected an integer' })
    .transform(Number)
    .pipe(n)
    .prefault(String(defaultValue));
}

/** A non-negative number setting (decimals allowed). */
export function envNumber(defaultValue: number, bounds: { min?: number; max?: number } = {}) {
  let n = z.number();
  if (bounds.min !== undefined) n = n.min(bounds.min);
  if (bounds.max !== undefined) n = n.max(bounds.max);
  return z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, { message: 'expected a number' })
    .transform(Number)
    .pipe(n)
    .prefault(String(defaultValue));
}

/** A comma-separated list setting; blanks dropped, items trimmed. */
export function envList(defaultValue: string[] = []) {
  return z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    )
    .prefault(defaultValue.join(','));
}
