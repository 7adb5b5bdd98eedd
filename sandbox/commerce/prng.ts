// A small seeded PRNG (mulberry32). Data, faults and changes are drawn from it so the same seed gives
// the same bytes on every run and machine; Math.random would make failures unreproducible.

export type Random = {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** Picks a value with probability proportional to its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T;
  /** A money amount with two decimals in [min, max). */
  amount(min: number, max: number): number;
  digits(length: number): string;
  hex(length: number): string;
  alnum(length: number): string;
  /** A lowercase GUID without braces, e.g. 3f2b...-.... */
  guid(): string;
};

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';

export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  // Built from char codes in one go: `+=` would leave a chain of rope nodes behind every id.
  const codes: number[] = [];
  const chars = (alphabet: string, length: number) => {
    codes.length = length;
    for (let i = 0; i < length; i++) codes[i] = alphabet.charCodeAt(Math.floor(next() * alphabet.length));
    return String.fromCharCode(...codes);
  };
  const random: Random = {
    next,
    int,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
    chance: (probability) => next() < probability,
    weighted: (entries) => {
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      let roll = next() * total;
      for (const [value, weight] of entries) {
        roll -= weight;
        if (roll < 0) return value;
      }
      return entries[entries.length - 1]![0];
    },
    amount: (min, max) => Math.round((min + next() * (max - min)) * 100) / 100,
    digits: (length) => chars('0123456789', length),
    hex: (length) => chars(HEX, length),
    alnum: (length) => chars(ALNUM, length),
    guid: () => `${chars(HEX, 8)}-${chars(HEX, 4)}-4${chars(HEX, 3)}-${chars('89ab', 1)}${chars(HEX, 3)}-${chars(HEX, 12)}`,
  };
  return random;
}
