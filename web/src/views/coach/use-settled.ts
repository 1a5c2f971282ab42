import { useEffect, useState } from 'preact/hooks';

/** `value` once it has stopped changing for `ms`: a dragged slider asks the API once, not per step. */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
