/**
 * What an SMS body costs: its encoding and its segments, as Twilio bills them.
 *
 * - GSM-7 (3GPP TS 23.038, the "GSM 03.38" default alphabet and its extension table): a body made
 *   only of these characters is sent 7 bits a character; an extension character is an escape plus
 *   the character, two septets. 160 septets fit one segment; a longer body is sent in segments of
 *   153, each carrying a 6-byte concatenation header
 *   (https://www.twilio.com/docs/glossary/what-is-gsm-7-character-encoding,
 *   https://www.twilio.com/docs/glossary/what-sms-character-limit).
 * - One character outside it and the whole body is UCS-2, 16 bits a UTF-16 unit: 70 in one
 *   segment, 67 a segment beyond (https://www.twilio.com/docs/glossary/what-is-ucs-2-character-encoding).
 * - A segment never ends inside an escape sequence or a surrogate pair.
 */

const GSM_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';
const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSegments {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 units (UCS-2) of the body. */
  units: number;
  segments: number;
}

/** Whether every character of `text` is in the GSM-7 alphabet (basic or extension table). */
export function isGsm7(text: string): boolean {
  for (const ch of text) if (!BASIC.has(ch) && !EXTENSION.has(ch)) return false;
  return true;
}

/** Segments of `costs` (units per character) at `single` units for one segment and `part` for each of several. */
function pack(costs: number[], single: number, part: number): { units: number; segments: number } {
  const units = costs.reduce((a, b) => a + b, 0);
  if (units <= single) return { units, segments: 1 };
  let segments = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > part) {
      segments += 1;
      used = 0;
    }
    used += cost;
  }
  return { units, segments };
}

/** The encoding and the segment count of an SMS body. */
export function smsSegments(text: string): SmsSegments {
  const chars = [...text];
  if (isGsm7(text))
    return {
      encoding: 'GSM-7',
      ...pack(
        chars.map((ch) => (EXTENSION.has(ch) ? 2 : 1)),
        160,
        153,
      ),
    };
  return {
    encoding: 'UCS-2',
    ...pack(
      chars.map((ch) => ch.length),
      70,
      67,
    ),
  };
}

/**
 * Look-alikes of GSM-7 characters that turn a whole body into UCS-2: typographic quotes, dashes,
 * the ellipsis, bullets and dots, and spaces other than the space. The same substitutions as
 * Twilio's Smart Encoding (https://www.twilio.com/docs/messaging/services/smart-encoding-char-list),
 * which only Messaging Services apply on their own; done here, the body we send, and so its
 * segment count, is the one we know.
 */
const LOOK_ALIKES: [RegExp, string][] = [
  [/[\u201c\u201d\u201e\u201f\u00ab\u00bb\u02ba\u02ee\u275d\u275e\u301d\u301e\uff02]/g, '"'],
  [/[\u2018\u2019\u201a\u201b\u02b9\u02bb\u02bc\u02bd\u02c8\u02ca\u00b4\u0060\uff07]/g, "'"],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u02d7]/g, '-'],
  [/\u2026/g, '...'],
  [/[\u2022\u2023\u2043\u2219\u00b7\u22c5]/g, '-'],
  [/[\u00a0\u2000-\u200a\u202f\u205f\u3000\t]/g, ' '],
  [/[\u200b\u2060\ufeff]/g, ''],
];

/** `text` with the look-alikes above replaced by their GSM-7 characters; anything else is left as written. */
export function gsm7LookAlikes(text: string): string {
  let out = text;
  for (const [pattern, replacement] of LOOK_ALIKES) out = out.replace(pattern, replacement);
  return out;
}
