// The chaos run's random moments: the same seed gives the same moments, each distinct and in range.
import { describe, expect, it } from 'vitest';
import { randomMoments } from '../support/chaos.ts';

describe('randomMoments', () => {
  it('is replayable by its seed, distinct, ordered and within range', () => {
    const moments = randomMoments(5, 44, 12345);
    expect(randomMoments(5, 44, 12345)).toEqual(moments);
    expect(new Set(moments).size).toBe(5);
    expect([...moments].sort((a, b) => a - b)).toEqual(moments);
    for (const moment of moments) expect(moment >= 1 && moment <= 44).toBe(true);
    expect(randomMoments(5, 44, 54321)).not.toEqual(moments);
    expect(randomMoments(5, 3, 1)).toEqual([1, 2, 3]); // never more moments than there are
  });
});
