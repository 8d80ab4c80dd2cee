// The header printed once at the start: its parts joined with " · ", wrapped between parts so the
// hint ("/help for commands, Ctrl+D to leave") is never cut, even at 40 columns.
import stringWidth from 'string-width';
import type { Paint } from './view.js';
import { wrapStyled } from './wrap.js';

/** `parts` packed into lines of at most `width` cells (a part longer than a line gets its own, wrapped); the first part bold, the rest dim. */
export function headerLines(parts: readonly string[], width: number, p: Paint): string[] {
  const rows: string[][] = [];
  let used = 0;
  for (const part of parts) {
    const w = stringWidth(part);
    const row = rows[rows.length - 1];
    if (row && used + 3 + w <= width) {
      row.push(part);
      used += 3 + w;
    } else {
      rows.push([part]);
      used = w;
    }
  }
  const lines = rows.map((row, i) => {
    const text = row.join(' · ');
    if (i > 0) return p.dim(text);
    return p.bold(row[0]) + (row.length > 1 ? p.dim(` · ${row.slice(1).join(' · ')}`) : '');
  });
  return lines.flatMap((line) => wrapStyled(line, width)); // a part wider than the screen (a long session path) wraps
}
