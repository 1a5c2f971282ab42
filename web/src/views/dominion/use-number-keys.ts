/**
 * Number keys pick the numbered options: "3" picks option 3 at once; with 10 or more options a "1"
 * waits briefly for a second digit ("1" then "2" is option 12), and Enter picks what was typed. Keys
 * typed into a field, or with a modifier, are left alone.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/** How long a digit that could start a longer number waits for the next one. */
const NEXT_DIGIT_MS = 700;

function typingIntoField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Listens while `count` > 0; answers the digits typed so far (for showing them). */
export function useNumberKeys(count: number, onPick: (index: number) => void): string {
  const [typed, setTyped] = useState('');
  const typedRef = useRef('');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const pickRef = useRef(onPick);
  pickRef.current = onPick;
  // Set as the component renders, read at each key: a listener added in an effect (after paint) would
  // act on the count of an earlier render for a moment, and drop a key pressed right after a re-render.
  const countRef = useRef(count);
  countRef.current = count;

  const reset = () => {
    clearTimeout(timer.current);
    typedRef.current = '';
    setTyped('');
  };

  useEffect(() => {
    const pick = (text: string) => {
      reset();
      const index = Number(text);
      if (index >= 1 && index <= countRef.current) pickRef.current(index);
    };
    const onKey = (event: KeyboardEvent) => {
      const count = countRef.current;
      if (count === 0 || event.ctrlKey || event.metaKey || event.altKey || typingIntoField(event.target)) return;
      if (event.key === 'Enter' && typedRef.current) {
        event.preventDefault();
        pick(typedRef.current);
        return;
      }
      if (event.key === 'Escape') return reset();
      if (!/^[0-9]$/.test(event.key)) return;
      event.preventDefault();
      const text = typedRef.current + event.key;
      // Another digit could still make a valid number: wait for it; otherwise this is the choice.
      if (Number(text) * 10 <= count && Number(text) > 0) {
        clearTimeout(timer.current);
        typedRef.current = text;
        setTyped(text);
        timer.current = setTimeout(() => pick(text), NEXT_DIGIT_MS);
      } else {
        pick(text);
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  // Digits typed toward a list that has since changed, or one no longer shown, are dropped.
  useEffect(() => reset, [count]);

  return typed;
}
