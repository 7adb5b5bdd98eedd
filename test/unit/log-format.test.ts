import { describe, expect, it } from 'vitest';
import { chooseLogFormat } from '../../config/logger.ts';

describe('chooseLogFormat', () => {
  it('auto: pretty on a terminal, JSON for a file, pipe or log shipper', () => {
    expect(chooseLogFormat('auto', true)).toBe('pretty');
    expect(chooseLogFormat('auto', false)).toBe('json');
  });

  it('a format that was asked for (LOG_FORMAT) wins over the terminal check', () => {
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });
});
