// Inline Markdown (marked's inline tokens) as styled spans for the terminal: bold, italic, strike,
// inline code, links with their target shown, images as links, hard breaks as `\n`. Without
// color the spans carry no meaning, so the marks that matter stay as text: `code`, ~~strike~~.
import type { Token, Tokens } from 'marked';
import { decodeEntities } from '../session/markdown-html.js';
import { inertControls, withStyle, type Span } from './terminal-text.js';

/** SGR parameters of each inline kind. */
export const INLINE_STYLES = {
  strong: '1',
  em: '3',
  del: '9',
  code: '36',
  link: '4;34',
  url: '2',
  html: '2',
} as const;

/** Soft line breaks (and a code span's line endings) are spaces; `\n` in a span means a hard break. */
const softBreaks = (text: string) => (text.includes('\n') ? text.replace(/\n/g, ' ') : text);

/**
 * `tokens` as spans, each in `base` with its own style laid over it. `color` false adds the
 * textual marks of inline code and strikethrough (the styles will not be shown).
 */
export function inlineSpans(tokens: Token[] | undefined, color: boolean, base = ''): Span[] {
  const out: Span[] = [];
  for (const t of tokens ?? []) appendInline(out, t, color, base);
  return out;
}

function appendInline(out: Span[], t: Token, color: boolean, base: string): void {
  // Every span's text passes here: marked decodes character references (`&#27;` is ESC), so even
  // text sanitized before lexing may hold controls again.
  const text = (s: string, style = base) => {
    if (s !== '') out.push({ text: inertControls(s), style });
  };
  const nested = (style: string) => {
    for (const child of (t as Tokens.Generic).tokens ?? []) appendInline(out, child, color, withStyle(base, style));
  };
  switch (t.type) {
    case 'text':
      if (t.tokens) for (const child of t.tokens) appendInline(out, child, color, base);
      else text(softBreaks(decodeEntities(t.text)));
      return;
    case 'escape':
      text(t.text);
      return;
    case 'strong':
      nested(INLINE_STYLES.strong);
      return;
    case 'em':
      nested(INLINE_STYLES.em);
      return;
    case 'del':
      if (!color) text('~~');
      nested(INLINE_STYLES.del);
      if (!color) text('~~');
      return;
    case 'codespan': {
      const code = softBreaks(t.text);
      text(color ? code : `\`${code}\``, withStyle(base, INLINE_STYLES.code));
      return;
    }
    case 'br':
      text('\n');
      return;
    case 'link':
      appendLink(out, t as Tokens.Link, color, base);
      return;
    case 'image': {
      const image = t as Tokens.Image;
      text(`[image: ${softBreaks(decodeEntities(image.text))}]`, withStyle(base, INLINE_STYLES.link));
      text(` (${image.href})`, withStyle(base, INLINE_STYLES.url));
      return;
    }
    case 'html':
      text(softBreaks(t.text), withStyle(base, INLINE_STYLES.html));
      return;
    case 'checkbox':
      return; // a list item's box: the list draws it
    default:
      if (typeof t.raw === 'string') text(softBreaks(t.raw));
  }
}

/** A link: its text, then its target in parentheses unless the text already says it (an autolink, say). */
function appendLink(out: Span[], link: Tokens.Link, color: boolean, base: string): void {
  const style = withStyle(base, INLINE_STYLES.link);
  const start = out.length;
  for (const child of link.tokens ?? []) appendInline(out, child, color, style);
  const shown = out
    .slice(start)
    .map((s) => s.text)
    .join('');
  const href = inertControls(link.href);
  if (shown === '') out.push({ text: href, style });
  else if (shown !== href && `mailto:${shown}` !== href) out.push({ text: ` (${href})`, style: withStyle(base, INLINE_STYLES.url) });
}
