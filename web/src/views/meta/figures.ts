/** How the view writes the tools' numbers: shares and win rates are percentages with up to two decimals. */

export const percent = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : `${value}%`);

/** A share change with its sign and an arrow, so the trend reads without colour. */
export function shareChange(change: number): string {
  if (change > 0) return `▲ +${change}`;
  if (change < 0) return `▼ ${change}`;
  return '= 0';
}

export const record = (r: { wins: number; losses: number; draws: number }): string => `${r.wins}–${r.losses}–${r.draws}`;

/** "WR" as colour letters; "C" is colourless. */
export const colours = (identity: string): string => identity || 'C';
