// The line editor: editing keys on a multi-line buffer, the submit rules (Enter, "\" + Enter,
// Alt+Enter), collapsed pastes, the history with the draft kept, and the layout for a width
// (wide characters, emoji, the cursor's cell), with property tests over random key sequences.
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { LineEditor, type KeyResult } from '../src/interactive/editor.js';
import { KeyParser, PASTE_END, PASTE_START, type Key, type NamedKey } from '../src/interactive/keys.js';

/** Types `input` as a terminal would send it (keys through the key parser), returning what each key did. */
function press(editor: LineEditor, input: string): KeyResult[] {
  const parser = new KeyParser({ unbracketedPaste: false });
  return [...parser.feed(input), ...parser.flush()].map((key) => editor.handleKey(key));
}

const key = (name: NamedKey['name'], mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {}): NamedKey => ({ name, ctrl: !!mods.ctrl, alt: !!mods.alt, shift: !!mods.shift });
const K = {
  enter: '\r',
  altEnter: '\x1b\r',
  left: '\x1b[D',
  right: '\x1b[C',
  up: '\x1b[A',
  down: '\x1b[B',
  home: '\x1b[H',
  end: '\x1b[F',
  bs: '\x7f',
  del: '\x1b[3~',
  ctrlLeft: '\x1b[1;5D',
  ctrlRight: '\x1b[1;5C',
  altLeft: '\x1b\x1b[D',
  ctrlA: '\x01',
  ctrlE: '\x05',
  ctrlU: '\x15',
  ctrlK: '\x0b',
  ctrlW: '\x17',
};
const bracketed = (text: string) => PASTE_START + text + PASTE_END;
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

function editorWith(text: string, options = {}): LineEditor {
  const e = new LineEditor(options);
  e.setText(text);
  return e;
}

describe('the line editor: editing', () => {
  it('types text, moves the cursor and deletes on one line', () => {
    const e = new LineEditor();
    expect(e.isEmpty()).toBe(true);
    press(e, 'helo' + K.left + 'l');
    expect(e.text).toBe('hello');
    expect(e.cursor).toEqual({ line: 0, column: 4 });
    press(e, K.home + K.del + 'H' + K.end + '!' + K.left + K.bs);
    expect(e.text).toBe('Hell!');
    expect(e.cursor).toEqual({ line: 0, column: 4 });
    expect(e.isEmpty()).toBe(false);
  });

  it('Alt+Enter, Shift+Enter and Ctrl+J insert a newline where the cursor is', () => {
    const e = new LineEditor();
    press(e, 'ab' + K.left + K.altEnter);
    expect(e.text).toBe('a\nb');
    expect(e.cursor).toEqual({ line: 1, column: 0 });
    press(e, K.end + '\x1b[13;2u' + 'c\nd');
    expect(e.text).toBe('a\nb\nc\nd');
    expect(e.cursor).toEqual({ line: 3, column: 1 });
  });

  it('Backspace at a line start and Delete at a line end join the lines', () => {
    const e = editorWith('one\ntwo');
    press(e, K.home + K.bs);
    expect(e.text).toBe('onetwo');
    expect(e.cursor).toEqual({ line: 0, column: 3 });
    press(e, K.altEnter + K.up + K.end + K.del);
    expect(e.text).toBe('onetwo');
    press(e, K.ctrlA + K.bs + K.left);
    expect(e.cursor).toEqual({ line: 0, column: 0 }); // nothing before the first line
  });

  it('Left and Right cross line ends; Home/End and Ctrl+A/Ctrl+E go to the line ends; Ctrl+Home/End to the buffer ends', () => {
    const e = editorWith('ab\ncd');
    press(e, K.home + K.left);
    expect(e.cursor).toEqual({ line: 0, column: 2 });
    press(e, K.right);
    expect(e.cursor).toEqual({ line: 1, column: 0 });
    press(e, K.ctrlE);
    expect(e.cursor).toEqual({ line: 1, column: 2 });
    press(e, K.ctrlA);
    expect(e.cursor).toEqual({ line: 1, column: 0 });
    press(e, '\x1b[1;5H');
    expect(e.cursor).toEqual({ line: 0, column: 0 });
    press(e, '\x1b[1;5F');
    expect(e.cursor).toEqual({ line: 1, column: 2 });
  });

  it('word moves (Ctrl/Alt+Left/Right, Alt+B/F) stop at word and punctuation runs', () => {
    const e = editorWith('foo bar.baz  qux');
    const stops: number[] = [];
    press(e, K.home);
    for (let i = 0; i < 6; i++) stops.push((press(e, K.ctrlRight), e.cursor.column));
    expect(stops).toEqual([3, 7, 8, 11, 16, 16]);
    const back: number[] = [];
    for (let i = 0; i < 5; i++) back.push((press(e, i % 2 ? K.altLeft : '\x1bb'), e.cursor.column));
    expect(back).toEqual([13, 8, 7, 4, 0]);
    press(e, '\x1bf');
    expect(e.cursor.column).toBe(3);
  });

  it('Ctrl+W deletes the word (or punctuation run) before the cursor; Alt+D the word after; Alt+Backspace like Ctrl+W', () => {
    const e = editorWith('git commit -m "msg"');
    press(e, K.ctrlW);
    expect(e.text).toBe('git commit -m "msg');
    press(e, K.ctrlW + K.ctrlW);
    expect(e.text).toBe('git commit -m ');
    press(e, '\x1b\x7f');
    expect(e.text).toBe('git commit -');
    press(e, K.ctrlW);
    expect(e.text).toBe('git commit ');
    press(e, K.home + '\x1bd');
    expect(e.text).toBe(' commit ');
  });

  it('Ctrl+U deletes to the line start, Ctrl+K to the line end; at the line start or end they join lines', () => {
    const e = editorWith('first\nsecond line');
    press(e, K.left + K.left + K.ctrlU);
    expect(e.text).toBe('first\nne');
    expect(e.cursor).toEqual({ line: 1, column: 0 });
    press(e, K.ctrlU);
    expect(e.text).toBe('firstne');
    press(e, K.ctrlK);
    expect(e.text).toBe('first');
    press(e, K.altEnter + 'x' + K.up + K.ctrlE + K.ctrlK);
    expect(e.text).toBe('firstx');
  });

  it('Up and Down move between lines keeping the cell column, wide characters counted as 2', () => {
    const e = editorWith('abcdef\n漢字\nabcdef');
    press(e, K.left + K.left);
    expect(e.cursor).toEqual({ line: 2, column: 4 });
    press(e, K.up);
    expect(e.cursor).toEqual({ line: 1, column: 2 }); // cell 4 is after 漢字
    press(e, K.up);
    expect(e.cursor).toEqual({ line: 0, column: 4 }); // the goal column is kept
    press(e, K.left + K.down);
    expect(e.cursor).toEqual({ line: 1, column: 1 }); // cell 3 is inside 字: the cursor stays before it
  });

  it('the cursor moves over whole grapheme clusters; Backspace deletes a whole emoji', () => {
    const e = new LineEditor();
    press(e, 'a👨‍👩‍👧‍👦b🇫🇷❤️');
    expect(e.cursor.column).toBe(5);
    press(e, K.left + K.left + K.left + K.bs);
    expect(e.text).toBe('ab🇫🇷❤️');
    expect(e.cursor.column).toBe(1);
  });

  it('a combining mark typed after a letter joins it into one character', () => {
    const e = new LineEditor();
    press(e, 'e');
    press(e, '\u0301');
    expect(e.cursor.column).toBe(1);
    press(e, 'x' + K.left + K.left + K.del);
    expect(e.text).toBe('x');
  });

  it('keys that are not editing keys are left to the caller', () => {
    const e = new LineEditor();
    for (const k of [key('escape'), key('tab'), key('c', { ctrl: true }), key('d', { ctrl: true }), key('pageup'), key('f1'), key('l', { ctrl: true })]) {
      expect(e.handleKey(k), k.name).toBe('ignored');
    }
    expect(e.isEmpty()).toBe(true);
  });
});

describe('the line editor: submit rules', () => {
  it('Enter submits; submit() returns the text and clears the buffer', () => {
    const e = new LineEditor();
    expect(press(e, 'fix the bug' + K.enter)).toEqual(['handled', 'submit']);
    expect(e.submit()).toBe('fix the bug');
    expect(e.isEmpty()).toBe(true);
    expect(e.cursor).toEqual({ line: 0, column: 0 });
  });

  it('Enter after a backslash at the end of the line removes it and starts a new line', () => {
    const e = new LineEditor();
    expect(press(e, 'first \\' + K.enter + 'second\\' + K.enter + 'third' + K.enter)).toEqual(['handled', 'handled', 'handled', 'handled', 'handled', 'submit']);
    expect(e.submit()).toBe('first \nsecond\nthird');
  });

  it('a backslash not at the cursor, at the line end, is kept and Enter submits', () => {
    const e = new LineEditor();
    expect(press(e, 'path\\' + K.left + K.enter)).toEqual(['handled', 'handled', 'submit']);
    expect(e.submit()).toBe('path\\');
  });

  it('Enter submits the whole buffer from any line', () => {
    const e = editorWith('one\ntwo\nthree');
    press(e, K.up + K.up);
    expect(press(e, K.enter)).toEqual(['submit']);
    expect(e.submit()).toBe('one\ntwo\nthree');
  });
});

describe('the line editor: pastes', () => {
  it('a short paste is inserted as text, line breaks included, the cursor after it', () => {
    const e = editorWith('[]');
    press(e, K.left + bracketed('a\r\nb\nc'));
    expect(e.text).toBe('[a\nb\nc]');
    expect(e.cursor).toEqual({ line: 2, column: 1 });
    expect(e.render(80).lines).toEqual(['> [a', '  b', '  c]']);
  });

  it('a long paste shows as a placeholder and is submitted in full', () => {
    const e = new LineEditor();
    press(e, 'see ' + bracketed(numbered(240)) + ' please');
    expect(e.render(80).lines).toEqual(['> see [paste #1: 240 lines] please']);
    expect(e.text).toBe(`see ${numbered(240)} please`);
    expect(press(e, K.enter)).toEqual(['submit']);
    expect(e.submit()).toBe(`see ${numbered(240)} please`);
  });

  it('Backspace and Delete remove a placeholder as a unit; word moves take it as one word', () => {
    const e = new LineEditor();
    press(e, 'x ' + bracketed(numbered(20)) + 'y');
    press(e, K.left + K.bs);
    expect(e.text).toBe('x y');
    press(e, bracketed(numbered(20)) + K.ctrlLeft);
    expect(e.cursor.column).toBe(2);
    press(e, K.del);
    expect(e.text).toBe('x y');
  });

  it('several pastes each get their own placeholder', () => {
    const e = new LineEditor();
    press(e, bracketed(numbered(11)) + K.altEnter + bracketed(numbered(30)) + bracketed('x'.repeat(5000)));
    expect(e.render(80).lines).toEqual(['> [paste #1: 11 lines]', '  [paste #2: 30 lines][paste #3: 4.9 KB]']);
    expect(e.submit()).toBe(`${numbered(11)}\n${numbered(30)}${'x'.repeat(5000)}`);
  });

  it('the collapse limits come from the options', () => {
    const e = new LineEditor({ collapseLines: 2, collapseBytes: 10 });
    press(e, bracketed('a\nb') + bracketed('a\nb\nc'));
    expect(e.render(80).lines).toEqual(['> a', '  b[paste #1: 3 lines]']);
    press(e, bracketed('12345678901'));
    expect(e.render(80).lines[1]).toBe('  b[paste #1: 3 lines][paste #2: 0.0 KB]');
  });

  it('a placeholder wider than the screen is cut to fit, and can be styled', () => {
    const e = new LineEditor();
    press(e, bracketed(numbered(300)));
    const r = e.render(12, { pasteStyle: (s) => `<${s}>` });
    expect(r.lines).toEqual(['> <[paste #1:>', '  ']);
    expect(e.render(80, { pasteStyle: (s) => `\x1b[2m${s}\x1b[22m` }).lines).toEqual(['> \x1b[2m[paste #1: 300 lines]\x1b[22m']);
  });
});

describe('the line editor: history', () => {
  it('Up at the first line walks back, Down at the last walks forward, back to the draft as it was', () => {
    const e = new LineEditor({ history: ['oldest', 'two\nlines', 'newest'] });
    press(e, 'my dr' + K.left);
    press(e, K.up);
    expect(e.text).toBe('newest');
    press(e, K.up);
    expect(e.text).toBe('two\nlines');
    expect(e.cursor).toEqual({ line: 0, column: 3 }); // on the first line: Up again goes on back
    press(e, K.up + K.up);
    expect(e.text).toBe('oldest'); // the oldest: Up stays
    press(e, K.down + K.down);
    expect(e.text).toBe('newest');
    press(e, K.down);
    expect(e.text).toBe('my dr');
    expect(e.cursor).toEqual({ line: 0, column: 4 });
    press(e, K.down);
    expect(e.text).toBe('my dr');
  });

  it('Up and Down inside a multi-line buffer move the cursor, not the history', () => {
    const e = new LineEditor({ history: ['earlier'] });
    press(e, 'a' + K.altEnter + 'b');
    press(e, K.up);
    expect(e.text).toBe('a\nb');
    press(e, K.up);
    expect(e.text).toBe('earlier');
    press(e, K.down);
    expect(e.text).toBe('a\nb');
    expect(e.cursor).toEqual({ line: 0, column: 1 });
  });

  it('edits to an earlier entry are kept while walking, the draft too, until a submit', () => {
    const e = new LineEditor({ history: ['one', 'two'] });
    press(e, 'draft' + K.up + '!' + K.up + K.down);
    expect(e.text).toBe('two!');
    press(e, K.down);
    expect(e.text).toBe('draft');
    press(e, K.up + K.enter);
    expect(e.submit()).toBe('two!');
    press(e, K.up);
    expect(e.text).toBe('two!');
    press(e, K.up);
    expect(e.text).toBe('two'); // the entry itself is unchanged
  });

  it('a draft with a collapsed paste comes back with its placeholder', () => {
    const e = new LineEditor({ history: ['old'] });
    press(e, 'p ' + bracketed(numbered(50)) + K.up + K.down);
    expect(e.render(80).lines).toEqual(['> p [paste #1: 50 lines]']);
    expect(e.text).toBe(`p ${numbered(50)}`);
  });

  it('submitted entries join the history: not blank ones, not a repeat of the last, at most historyLimit', () => {
    const e = new LineEditor({ historyLimit: 3 });
    for (const t of ['a', 'b', 'b', '   ', 'c', 'd']) {
      e.setText(t);
      e.submit();
    }
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) seen.push((press(e, K.up), e.text));
    expect(seen).toEqual(['d', 'c', 'b', 'b']);
  });

  it('setHistory replaces the entries; the buffer stays as the draft', () => {
    const e = editorWith('draft');
    e.setHistory(['x', 'y']);
    press(e, K.up);
    expect(e.text).toBe('y');
    press(e, K.down);
    expect(e.text).toBe('draft');
  });
});

describe('the line editor: render', () => {
  it('puts the prompt on the first line and the indent on the others, and places the cursor', () => {
    const e = editorWith('ab\ncd');
    expect(e.render(40)).toEqual({ lines: ['> ab', '  cd'], cursorLine: 1, cursorColumn: 4 });
    expect(e.render(40, { prompt: '\x1b[1m❯\x1b[0m ', indent: '· ' })).toEqual({ lines: ['\x1b[1m❯\x1b[0m ab', '· cd'], cursorLine: 1, cursorColumn: 4 });
    expect(new LineEditor().render(40)).toEqual({ lines: ['> '], cursorLine: 0, cursorColumn: 2 });
  });

  it('wraps long lines at the width, the wrapped parts indented', () => {
    const e = editorWith('abcdefghij');
    press(e, K.home + K.right.repeat(7));
    expect(e.render(6)).toEqual({ lines: ['> abcd', '  efgh', '  ij'], cursorLine: 1, cursorColumn: 5 });
    press(e, K.end);
    expect(e.render(6)).toMatchObject({ cursorLine: 2, cursorColumn: 4 });
  });

  it('a wide character that does not fit in the last cell goes to the next line', () => {
    const e = editorWith('abc漢字');
    expect(e.render(7).lines).toEqual(['> abc漢', '  字']);
    expect(e.render(6)).toEqual({ lines: ['> abc', '  漢字', '  '], cursorLine: 2, cursorColumn: 2 });
    press(e, K.left);
    expect(e.render(6)).toEqual({ lines: ['> abc', '  漢字'], cursorLine: 1, cursorColumn: 4 });
  });

  it('counts emoji as 2 cells in the cursor column', () => {
    const e = editorWith('👨‍👩‍👧‍👦😀❤️x');
    expect(e.render(80)).toMatchObject({ cursorLine: 0, cursorColumn: 2 + 2 + 2 + 2 + 1 });
    press(e, K.left + K.left);
    expect(e.render(80)).toMatchObject({ cursorColumn: 2 + 2 + 2 });
  });

  it('the cursor after a line that fills the width goes to a line of its own', () => {
    const e = editorWith('abcd');
    expect(e.render(6)).toEqual({ lines: ['> abcd', '  '], cursorLine: 1, cursorColumn: 2 });
    press(e, K.left);
    expect(e.render(6)).toEqual({ lines: ['> abcd'], cursorLine: 0, cursorColumn: 5 });
  });

  it('never writes control characters: they show as ^X, tabs as spaces', () => {
    const e = new LineEditor();
    press(e, bracketed('a\tb\x1b[31mc\x07'));
    const { lines } = e.render(80);
    expect(lines).toEqual(['> a    b^[[31mc^G']);
    expect(e.text).toBe('a\tb\x1b[31mc\x07');
  });

  it('on a very narrow screen the prompt goes, and what is wider than the screen is replaced', () => {
    const e = editorWith('漢a');
    expect(e.render(3)).toEqual({ lines: ['漢a', ''], cursorLine: 1, cursorColumn: 0 });
    expect(e.render(1)).toEqual({ lines: ['?', 'a', ''], cursorLine: 2, cursorColumn: 0 });
    expect(e.render(0).lines).toEqual(e.render(1).lines);
    expect(e.render(Number.NaN).lines).toEqual(['> 漢a']);
  });
});

// ---- properties over random key sequences ----

const anyText = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 5 }), fc.constantFrom('漢字', '👨‍👩‍👧‍👦', '🇫🇷', '\u0301', 'e', ' ', '.', '\\', '\t', '❤️', 'word'));
const namedKey = fc
  .record({
    name: fc.constantFrom<NamedKey['name']>('enter', 'backspace', 'delete', 'left', 'right', 'up', 'down', 'home', 'end', 'tab', 'escape', 'a', 'e', 'u', 'k', 'w', 'j', 'b', 'f', 'd'),
    ctrl: fc.boolean(),
    alt: fc.boolean(),
    shift: fc.boolean(),
  })
  .map((k): Key => k);
const anyKey: fc.Arbitrary<Key> = fc.oneof(
  { weight: 4, arbitrary: namedKey },
  { weight: 3, arbitrary: anyText.map((text): Key => ({ name: 'text', text })) },
  { weight: 1, arbitrary: fc.oneof(anyText, fc.integer({ min: 1, max: 30 }).map(numbered)).map((text): Key => ({ name: 'paste', text })) },
);

describe('the line editor: properties', () => {
  it('property: random keys never throw; the cursor stays inside the buffer; rendered lines fit the width', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 4 }), fc.array(anyKey, { maxLength: 60 }), fc.integer({ min: 1, max: 30 }), (history, keys, width) => {
        const e = new LineEditor({ history, collapseLines: 3 });
        for (const k of keys) {
          const result = e.handleKey(k);
          if (result === 'submit') {
            const before = e.text;
            expect(e.submit()).toBe(before);
            expect(e.isEmpty()).toBe(true);
          }
          const wide = e.render(10_000);
          expect(wide.cursorLine).toBeLessThan(wide.lines.length);
          expect(wide.cursorColumn).toBeGreaterThanOrEqual(2);
          expect(wide.cursorColumn).toBeLessThanOrEqual(stringWidth(wide.lines[wide.cursorLine]));
          const r = e.render(width);
          for (const line of r.lines) expect(stringWidth(line)).toBeLessThanOrEqual(width);
          expect(r.cursorLine).toBeLessThan(r.lines.length);
          expect(r.cursorColumn).toBeLessThan(width);
          expect(r.cursorColumn).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('property: on one line of plain text, the editor does what a string and an index would', () => {
    const op = fc.oneof(
      fc.stringMatching(/^[a-z ]{1,3}$/).map((text) => ({ key: { name: 'text', text } as Key, apply: (s: string, c: number) => [s.slice(0, c) + text + s.slice(c), c + text.length] as const })),
      fc.constant({ key: key('left'), apply: (s: string, c: number) => [s, Math.max(0, c - 1)] as const }),
      fc.constant({ key: key('right'), apply: (s: string, c: number) => [s, Math.min(s.length, c + 1)] as const }),
      fc.constant({ key: key('home'), apply: (s: string) => [s, 0] as const }),
      fc.constant({ key: key('end'), apply: (s: string) => [s, s.length] as const }),
      fc.constant({ key: key('backspace'), apply: (s: string, c: number) => (c > 0 ? ([s.slice(0, c - 1) + s.slice(c), c - 1] as const) : ([s, c] as const)) }),
      fc.constant({ key: key('delete'), apply: (s: string, c: number) => [s.slice(0, c) + s.slice(c + 1), c] as const }),
      fc.constant({ key: key('u', { ctrl: true }), apply: (s: string, c: number) => [s.slice(c), 0] as const }),
      fc.constant({ key: key('k', { ctrl: true }), apply: (s: string, c: number) => [s.slice(0, c), c] as const }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const e = new LineEditor();
        let s = '';
        let c = 0;
        for (const o of ops) {
          e.handleKey(o.key);
          [s, c] = o.apply(s, c);
          expect(e.text).toBe(s);
          expect(e.cursor).toEqual({ line: 0, column: c });
        }
      }),
      { numRuns: 500 },
    );
  });

  it('property: typed text ends up in the buffer as typed, and the wrapped lines hold it all', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 8 }).filter((s) => !/[\p{Cc}]/u.test(s)),
          { maxLength: 20 },
        ),
        fc.integer({ min: 6, max: 40 }),
        (parts, width) => {
          const e = new LineEditor();
          for (const text of parts) e.handleKey({ name: 'text', text });
          expect(e.text).toBe(parts.join(''));
          const r = e.render(width);
          expect(r.lines.map((l) => l.slice(2)).join('')).toBe(parts.join(''));
        },
      ),
      { numRuns: 500 },
    );
  });
});
