// Text a user must read before approving it (a command, a file's content), with nothing hidden:
// every character that would change what the terminal shows without being seen itself is shown
// as `<U+XXXX>`. Those are the C0 and C1 controls but tab and newline (a carriage return can make
// a line look like another; an escape sequence can redraw the screen), DEL, the bidirectional
// overrides and isolates (they reorder text on screen), zero-width characters and the BOM.
const INVISIBLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** `text` with every invisible or terminal-driving character shown as `<U+XXXX>`; tabs and newlines kept. */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`);
}
