import { useInsertionEffect, useRef, type MutableRefObject } from 'react';

/**
 * A ref that always holds the value of the last committed render, so
 * callbacks read the caller's newest options without restarting anything.
 * Updated in an insertion effect: during the commit, before any layout or
 * passive effect or timer can read it. Not useLayoutEffect: React 18 warns
 * when a server render meets one, which a `typeof document` check cannot
 * avoid where a server render has a DOM (jsdom); useInsertionEffect (React
 * 18+) is silent on the server in 18 and 19.
 */
export function useLatest<T>(value: T): MutableRefObject<T> {
  const ref = useRef(value);
  useInsertionEffect(() => {
    ref.current = value;
  });
  return ref;
}
