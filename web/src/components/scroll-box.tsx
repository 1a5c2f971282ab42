import type { ComponentChildren } from 'preact';

/**
 * A wide table's horizontal scroller (phones): focusable and named, so keyboard users can scroll it
 * even when the table holds no link or button.
 */
export function ScrollBox({ label, class: className, children }: { label: string; class?: string; children: ComponentChildren }) {
  return (
    <div class={`table-scroll ${className ?? ''}`} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
