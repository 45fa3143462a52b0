// @vitest-environment jsdom
import { renderHook } from '@testing-library/react';
import { useState, version } from 'react';
import { version as domVersion } from 'react-dom';
import { version as serverVersion } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

// vitest.config.ts runs the React tests against the root's React 19; vitest.react18.config.ts
// runs them again against React 18 and sets POLLITE_REACT_MAJOR=18. Checked here so that
// neither run can quietly test the other's React.
const major = process.env.POLLITE_REACT_MAJOR ?? '19';

describe(`the React the hook tests run against (${major})`, () => {
  it('react, react-dom and react-dom/server are all that major version', () => {
    expect(version.split('.')[0]).toBe(major);
    expect(domVersion).toBe(version);
    expect(serverVersion).toBe(version);
  });

  it('@testing-library/react renders with that same React', () => {
    // With a react-dom from the other React, calling a hook here fails ("Invalid hook call").
    const { result } = renderHook(() => useState(version)[0]);
    expect(result.current).toBe(version);
  });
});
