import { describe, expect, it } from 'vitest';
import * as react from '../../src/react/index.js';

describe('pollite/react exports', () => {
  it('exactly the three hooks at run time', () => {
    expect(Object.keys(react).sort()).toEqual(['useFetchWithRetry', 'usePoll', 'usePollOperation']);
  });
});
