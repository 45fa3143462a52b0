import { useState } from 'react';

/**
 * One value per key, made by `create` when the key changes, and from the
 * first render with that key on (so a new url never shows the old one's
 * state). Kept in state, not a memo React may drop: a dropped memo would
 * make a new state and restart a poll for nothing.
 */
export function useKeyed<TValue>(key: string | null, create: () => TValue): TValue {
  const [slot, setSlot] = useState(() => ({ key, value: create() }));
  if (slot.key === key) return slot.value;
  const next = { key, value: create() };
  setSlot(next);
  return next.value;
}
