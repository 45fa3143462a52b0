import { describe, expect, it } from 'vitest';
import { isRetryableStatus } from '../../src/kit/index.js';

describe('isRetryableStatus', () => {
  it('is true for 408, 429 and 500 to 599, false on either side of each', () => {
    const retried = [399, 407, 408, 409, 428, 429, 430, 499, 500, 503, 599, 600, 999].filter(isRetryableStatus);
    expect(retried).toEqual([408, 429, 500, 503, 599]);
  });
});
