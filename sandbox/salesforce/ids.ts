// Salesforce record ids: 15 case-sensitive base-62 characters (3-character key prefix first) plus the
// 3-character case-insensitive checksum that makes the 18-character form. Clients send either form.
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';

/** The checksum suffix: one character per 5-character chunk, its bits mark the upper-case letters. */
function suffixOf(id15: string): string {
  let suffix = '';
  for (let chunk = 0; chunk < 3; chunk++) {
    let bits = 0;
    for (let i = 0; i < 5; i++) {
      const c = id15[chunk * 5 + i]!;
      if (c >= 'A' && c <= 'Z') bits |= 1 << i;
    }
    suffix += SUFFIX_ALPHABET[bits];
  }
  return suffix;
}

/** The canonical 18-character id for a 15- or 18-character id, or undefined when it is not one. */
export function canonicalId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^[a-zA-Z0-9]{15}$/.test(value)) return value + suffixOf(value);
  if (!/^[a-zA-Z0-9]{18}$/.test(value)) return undefined;
  // The 18-character form is case-insensitive: the suffix restores the case of the first 15.
  const suffix = value.slice(15).toUpperCase();
  let id15 = '';
  for (let chunk = 0; chunk < 3; chunk++) {
    const bits = SUFFIX_ALPHABET.indexOf(suffix[chunk]!);
    if (bits < 0) return undefined;
    for (let i = 0; i < 5; i++) {
      const c = value[chunk * 5 + i]!;
      id15 += bits & (1 << i) ? c.toUpperCase() : c.toLowerCase();
    }
  }
  return id15 + suffix;
}

function base62(n: number, width: number): string {
  let out = '';
  while (n > 0) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(width, '0');
}

/** Issues 18-character ids: key prefix, a fixed pod marker, then a counter that never repeats. */
export function createIdFactory(after = 0) {
  let counter = after;
  return (keyPrefix: string): string => {
    counter += 1;
    const id15 = `${keyPrefix}Sb${base62(counter, 10)}`;
    return id15 + suffixOf(id15);
  };
}

/** The counter inside an id this sandbox issued (0 for any other id), so a restart can continue after it. */
export function idCounter(id: string): number {
  const match = /^\w{3}Sb([0-9A-Za-z]{10})/.exec(id);
  if (!match) return 0;
  let n = 0;
  for (const c of match[1]!) n = n * 62 + BASE62.indexOf(c);
  return n;
}

export const ORG_ID = canonicalId('00DSb0000000001')!;
export const USER_ID = canonicalId('005Sb0000000001')!;
