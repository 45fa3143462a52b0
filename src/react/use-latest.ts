import { useEffect, useLayoutEffect, useRef, type MutableRefObject } from 'react';

// useLayoutEffect warns during server rendering in React 18; on the server no
// effect runs anyway, so useEffect is an exact stand-in there.
const useIsomorphicLayoutEffect = typeof document === 'undefined' ? useEffect : useLayoutEffect;

/**
 * A ref that always holds the value of the last committed render, so
 * callbacks read the caller's newest options without restarting anything.
 * Updated in a layout effect: before any passive effect or timer can read it.
 */
export function useLatest<T>(value: T): MutableRefObject<T> {
  const ref = useRef(value);
  useIsomorphicLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}
