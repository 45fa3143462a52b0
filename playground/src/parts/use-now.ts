import { useEffect, useState } from 'react';

/** The current time, re-rendering every `everyMs` while `active` (for countdowns). */
export function useNow(active: boolean, everyMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
  // The state is as old as the last tick, or as the mount while nothing counted down: the first
  // frame of a new countdown would show a second too many. The clock itself is never older.
  return active ? Math.max(now, Date.now()) : now;
}

/** "next try in 3 s" for an epoch-ms time. */
export function useCountdown(at: number | undefined): string | undefined {
  const now = useNow(at !== undefined);
  if (at === undefined) return undefined;
  return `${Math.max(0, Math.ceil((at - now) / 1000))} s`;
}
