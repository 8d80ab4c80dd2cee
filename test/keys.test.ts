// The key parser: raw terminal input to key events. Every key form, chunks cut anywhere (inside
// sequences, surrogate pairs and paste markers), bracketed and unbracketed pastes, and unknown
// sequences dropped rather than typed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyParser, PASTE_END, PASTE_START, type Key } from '../src/interactive/keys.js';

/** The events of `input` fed as one chunk, then flushed (as after the caller's quiet-time timer). */
function keysOf(input: string, parser = new KeyParser()): Key[] {
  return [...parser.feed(input), ...parser.flush()];
}

/** The events of `chunks` fed one by one, then flushed. */
function keysOfChunks(chunks: string[], parser = new KeyParser()): Key[] {
  return [...chunks.flatMap((c) => parser.feed(c)), ...parser.flush()];
}

/** Joins adjacent text events: a chunk boundary may cut a run of typed text in two, nothing else. */
function joinText(keys: Key[]): Key[] {
  const out: Key[] = [];
  for (const k of keys) {
    const last = out.at(-1);
    if (k.name === 'text' && last?.name === 'text') out[out.length - 1] = { name: 'text', text: last.text + k.text };
    else out.push(k);
  }
  return out;
}

const k = (name: string, mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {}) => ({ name, ctrl: !!mods.ctrl, alt: !!mods.alt, shift: !!mods.shift });
const text = (t: string) => ({ name: 'text', text: t });
const paste = (t: string) => ({ name: 'paste', text: t });

/** Every key form the parser knows, as terminals send them, with the event expected. */
const FORMS: [string, unknown][] = [
  ['\r', k('enter')],
  ['\x1b\r', k('enter', { alt: true })],
  ['\x1b\n', k('enter', { alt: true })],
  ['\x1b[13;2u', k('enter', { shift: true })],
  ['\x1b[27;2;13~', k('enter', { shift: true })],
  ['\x1bOM', k('enter')],
  ['\t', k('tab')],
  ['\x1b[Z', k('tab', { shift: true })],
  ['\x7f', k('backspace')],
  ['\b', k('backspace')],
  ['\x1b\x7f', k('backspace', { alt: true })],
  ['\x1b[3~', k('delete')],
  ['\x1b[3;5~', k('delete', { ctrl: true })],
  ['\x1b[2~', k('insert')],
  ['\x1b[A', k('up')],
  ['\x1b[B', k('down')],
  ['\x1b[C', k('right')],
  ['\x1b[D', k('left')],
  ['\x1bOA', k('up')],
  ['\x1bOB', k('down')],
  ['\x1bOC', k('right')],
  ['\x1bOD', k('left')],
  ['\x1b[1;5D', k('left', { ctrl: true })],
  ['\x1b[1;5C', k('right', { ctrl: true })],
  ['\x1b[1;3D', k('left', { alt: true })],
  ['\x1b[1;9C', k('right', { alt: true })],
  ['\x1b[1;2A', k('up', { shift: true })],
  ['\x1b[1;6B', k('down', { ctrl: true, shift: true })],
  ['\x1b[1;8D', k('left', { ctrl: true, alt: true, shift: true })],
  ['\x1bOd', k('left', { ctrl: true })],
  ['\x1bOc', k('right', { ctrl: true })],
  ['\x1b[d', k('left', { shift: true })],
  ['\x1b\x1b[D', k('left', { alt: true })],
  ['\x1b\x1bOC', k('right', { alt: true })],
  ['\x1b[H', k('home')],
  ['\x1bOH', k('home')],
  ['\x1b[1~', k('home')],
  ['\x1b[7~', k('home')],
  ['\x1b[1;5H', k('home', { ctrl: true })],
  ['\x1b[7^', k('home', { ctrl: true })],
  ['\x1b[F', k('end')],
  ['\x1bOF', k('end')],
  ['\x1b[4~', k('end')],
  ['\x1b[8~', k('end')],
  ['\x1b[1;5F', k('end', { ctrl: true })],
  ['\x1b[8$', k('end', { shift: true })],
  ['\x1b[5~', k('pageup')],
  ['\x1b[6~', k('pagedown')],
  ['\x1b[5;5~', k('pageup', { ctrl: true })],
  ['\x1bOP', k('f1')],
  ['\x1b[[A', k('f1')],
  ['\x1b[15~', k('f5')],
  ['\x1b[24~', k('f12')],
  ['\x1b[1;2P', k('f1', { shift: true })],
  ['\x00', k('space', { ctrl: true })],
  ['\x1b ', k('space', { alt: true })],
  ['\x1ba', k('a', { alt: true })],
  ['\x1bb', k('b', { alt: true })],
  ['\x1bF', k('f', { alt: true, shift: true })],
  ['\x1b.', k('.', { alt: true })],
  ['\x1b\x01', k('a', { ctrl: true, alt: true })],
  ['\x1c', k('\\', { ctrl: true })],
  ['\x1f', k('_', { ctrl: true })],
  ['\x1b[97;5u', k('a', { ctrl: true })],
  ['\x1b[27;5;107~', k('k', { ctrl: true })],
  ['\x1b[27u', k('escape')],
  ['\x1bOp', text('0')],
  ['\x1b[120u', text('x')],
  ['\x1b[120;2u', text('X')],
];

describe('the key parser: key forms', () => {
  it.each(FORMS)('%j', (input, expected) => {
    expect(keysOf(input)).toEqual([expected]);
  });

  it('Ctrl+A to Ctrl+Z are their letters with ctrl, except those that are Backspace, Tab and Enter', () => {
    for (let c = 1; c <= 26; c++) {
      const letter = String.fromCharCode(c + 0x60);
      const expected = letter === 'h' ? k('backspace') : letter === 'i' ? k('tab') : letter === 'm' ? k('enter') : k(letter, { ctrl: true });
      expect(keysOf(String.fromCharCode(c)), `Ctrl+${letter}`).toEqual([expected]);
    }
    expect(keysOf('\n')).toEqual([k('j', { ctrl: true })]); // what Ctrl+J (and some Shift+Enter set-ups) send
  });

  it('Alt with every letter, lower and upper case', () => {
    for (const letter of 'abcdefghijklmnopqrstuvwxyz') {
      expect(keysOf('\x1b' + letter)).toEqual([k(letter, { alt: true })]);
      if (letter !== 'o') expect(keysOf('\x1b' + letter.toUpperCase())).toEqual([k(letter, { alt: true, shift: true })]);
    }
    // "ESC O" starts an SS3 sequence: alone it is Alt+Shift+O once the quiet time has passed.
    expect(keysOf('\x1bO')).toEqual([k('o', { alt: true, shift: true })]);
  });

  it('typed text keeps grapheme clusters whole: accents, CJK, emoji with ZWJ and variation selectors, flags', () => {
    const samples = ['hello world', 'héllo', 'e\u0301', '漢字かな', '👨‍👩‍👧‍👦', '❤️', '🏳️‍🌈', '🇫🇷🇯🇵', 'a😀b'];
    for (const s of samples) expect(keysOf(s)).toEqual([text(s)]);
  });

  it('text, keys and text in one chunk come out in order', () => {
    expect(keysOf('ab\x1b[Dc\r\x7f')).toEqual([text('ab'), k('left'), text('c'), k('enter'), k('backspace')]);
  });

  it('a chunk cut inside a surrogate pair does not split the character', () => {
    const p = new KeyParser();
    expect(p.feed('x\ud83d')).toEqual([text('x')]);
    expect(p.feed('\ude00y')).toEqual([text('😀y')]);
    expect(p.flush()).toEqual([]);
  });
});

describe('the key parser: Escape and unfinished sequences', () => {
  it('a lone ESC waits for flush(), then is Escape', () => {
    const p = new KeyParser();
    expect(p.feed('\x1b')).toEqual([]);
    expect(p.hasPending).toBe(true);
    expect(p.flush()).toEqual([k('escape')]);
    expect(p.hasPending).toBe(false);
    expect(p.flush()).toEqual([]);
  });

  it('an ESC whose sequence arrives in the next chunk, before the flush, is that sequence', () => {
    const p = new KeyParser();
    expect(p.feed('\x1b')).toEqual([]);
    expect(p.feed('[')).toEqual([]);
    expect(p.feed('1;5')).toEqual([]);
    expect(p.feed('D')).toEqual([k('left', { ctrl: true })]);
  });

  it('two ESCs are two Escapes; "ESC [" alone is Alt+[; an unfinished sequence is dropped', () => {
    expect(keysOf('\x1b\x1b')).toEqual([k('escape'), k('escape')]);
    expect(keysOf('\x1b[')).toEqual([k('[', { alt: true })]);
    expect(keysOf('\x1b[1;5')).toEqual([]);
    expect(keysOf('\x1b\x1b[1;')).toEqual([k('escape')]);
  });

  it('ESC before text that is no Alt key is Escape, then the text', () => {
    expect(keysOf('\x1b€')).toEqual([k('escape'), text('€')]);
  });
});

describe('the key parser: unknown sequences are dropped, never typed', () => {
  it.each([
    ['focus in', '\x1b[I'],
    ['cursor position report', '\x1b[12;40R'],
    ['device attributes reply', '\x1b[?1;2c'],
    ['SGR mouse', '\x1b[<0;10;5M'],
    ['X10 mouse', '\x1b[M !!'],
    ['unknown tilde key', '\x1b[99~'],
    ['unknown SS3', '\x1bOz'],
    ['stray paste end', PASTE_END],
    ['C1 control', '\x9b'],
  ])('%s', (_label, seq) => {
    expect(keysOf(`a${seq}b`)).toEqual([text('a'), text('b')]);
  });

  it('a malformed sequence is dropped up to the odd byte, which is read as what it is', () => {
    expect(keysOf('\x1b[12\rz')).toEqual([k('enter'), text('z')]);
  });

  it('property: a CSI sequence never turns into text made of its own bytes', () => {
    const params = fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', ';', ':', '?', '<', '>'), maxLength: 8 }).filter((p) => !p.startsWith('27;'));
    const final = fc
      .integer({ min: 0x40, max: 0x7e })
      .map((c) => String.fromCharCode(c))
      .filter((c) => c !== 'u');
    fc.assert(
      fc.property(params, final, (p, f) => {
        const keys = keysOf(`\x1b[${p}${f}`);
        expect(keys.filter((key) => key.name === 'text' || key.name === 'paste')).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the key parser: pastes', () => {
  it('a bracketed paste is one event, whatever it holds; "\\r\\n" and "\\r" become "\\n"', () => {
    const body = 'line 1\r\nline 2\rline 3\n\x1b[A not a key \x7f\x03\ttab 😀';
    expect(keysOf(`x${PASTE_START}${body}${PASTE_END}y`)).toEqual([text('x'), paste('line 1\nline 2\nline 3\n\x1b[A not a key \x7f\x03\ttab 😀'), text('y')]);
  });

  it('a paste of hundreds of lines in many chunks is one event', () => {
    const lines = Array.from({ length: 600 }, (_, i) => `line ${i}: ${'x'.repeat(i % 50)} é 漢`);
    const whole = PASTE_START + lines.join('\r') + PASTE_END;
    const p = new KeyParser();
    const chunks: string[] = [];
    for (let i = 0, size = 1; i < whole.length; i += size, size = ((size * 7 + 3) % 97) + 1) chunks.push(whole.slice(i, i + size));
    expect(chunks.length).toBeGreaterThan(300);
    const events = chunks.flatMap((c, i) => {
      const out = p.feed(c);
      if (i < chunks.length - 1) expect(p.inPaste || out.length === 0).toBe(true);
      return out;
    });
    expect(events).toEqual([paste(lines.join('\n'))]);
    expect(p.inPaste).toBe(false);
  });

  it('the paste markers may be cut anywhere', () => {
    const whole = `a${PASTE_START}p\x1b[201q${PASTE_END}b`;
    for (let i = 1; i < whole.length; i++) {
      for (let j = i + 1; j < whole.length; j++) {
        expect(keysOfChunks([whole.slice(0, i), whole.slice(i, j), whole.slice(j)]), `cut at ${i} and ${j}`).toEqual([text('a'), paste('p\x1b[201q'), text('b')]);
      }
    }
  });

  it('flush() leaves an open paste open; flush({ endPaste: true }) ends it with what arrived', () => {
    const p = new KeyParser();
    expect(p.feed(`${PASTE_START}half of it\x1b[20`)).toEqual([]);
    expect(p.flush()).toEqual([]);
    expect(p.inPaste).toBe(true);
    expect(p.flush({ endPaste: true })).toEqual([paste('half of it\x1b[20')]);
    expect(p.inPaste).toBe(false);
    expect(keysOf('q')).toEqual([text('q')]);
  });

  it('an empty bracketed paste is no event', () => {
    expect(keysOf(`${PASTE_START}${PASTE_END}`)).toEqual([]);
  });

  it('without the markers, a chunk with text after a line break is one paste', () => {
    expect(keysOf('first\rsecond\rthird')).toEqual([paste('first\nsecond\nthird')]);
    expect(keysOf('a\nb')).toEqual([paste('a\nb')]);
    expect(keysOf('two pasted lines\rthe second\r')).toEqual([paste('two pasted lines\nthe second\n')]);
  });

  it('a command and its Enter, typed while the process was busy, stay keys, however long the line', () => {
    expect(keysOf('ls\r')).toEqual([text('ls'), k('enter')]);
    expect(keysOf('/model nonexistent-provider/x\r')).toEqual([text('/model nonexistent-provider/x'), k('enter')]);
    expect(keysOf(`${'a long line typed while the answer was drawing '.repeat(4)}\r`)).toEqual([text('a long line typed while the answer was drawing '.repeat(4)), k('enter')]);
    expect(keysOf('\r\r\r')).toEqual([k('enter'), k('enter'), k('enter')]);
    expect(keysOf('\x1b[Aab\rcd')).toEqual([k('up'), text('ab'), k('enter'), text('cd')]); // escape sequences: typed keys
  });

  it('the unbracketed-paste guess can be turned off', () => {
    expect(keysOf('first\rsecond', new KeyParser({ unbracketedPaste: false }))).toEqual([text('first'), k('enter'), text('second')]);
  });
});

describe('the key parser: chunks cut anywhere', () => {
  const SAMPLE = `hé👨‍👩‍👧${FORMS.map(([s]) => s).join('x')}${PASTE_START}pasted\r\nlines\x1b[A${PASTE_END}漢字\x1b`;

  it('cutting the input at any one position gives the same events', () => {
    const whole = joinText(keysOf(SAMPLE, new KeyParser({ unbracketedPaste: false })));
    expect(whole.length).toBeGreaterThan(FORMS.length);
    for (let i = 1; i < SAMPLE.length; i++) {
      expect(joinText(keysOfChunks([SAMPLE.slice(0, i), SAMPLE.slice(i)], new KeyParser({ unbracketedPaste: false }))), `cut at ${i}`).toEqual(whole);
    }
  });

  // Pieces the property builds inputs from: every key form, text of all kinds, and bracketed pastes.
  const piece = fc.oneof(
    fc.constantFrom(...FORMS.map(([s]) => s)),
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.constantFrom('漢字', '👨‍👩‍👧‍👦', '🇫🇷', 'e\u0301', '❤️', '\x1b', '\x1b\x1b'),
    fc.string({ unit: fc.constantFrom('a', '\r', '\n', '\x1b', '[', '2', '0', '1', '~', 'é', '😀'), maxLength: 30 }).map((s) => PASTE_START + s.replaceAll(PASTE_END, '') + PASTE_END),
  );
  const cuts = (s: string) => fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, s.length - 1) }), { maxLength: 12 }).map((xs) => [...xs].sort((a, b) => a - b));
  const cutAt = (s: string, at: number[]) => [0, ...at, s.length].slice(1).map((end, i, ends) => s.slice(i === 0 ? 0 : ends[i - 1], end));

  it('property: any split of any input gives the events of the whole', () => {
    const input = fc.array(piece, { maxLength: 12 }).map((ps) => ps.join(''));
    fc.assert(
      fc.property(
        input.chain((s) => fc.tuple(fc.constant(s), cuts(s))),
        ([s, at]) => {
          const parser = () => new KeyParser({ unbracketedPaste: false });
          expect(joinText(keysOfChunks(cutAt(s, at), parser()))).toEqual(joinText(keysOf(s, parser())));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('property: with the unbracketed-paste guess on, the same holds for input whose line breaks are all inside bracketed pastes', () => {
    const noBreaks = piece.filter((p) => p.startsWith(PASTE_START) || !/[\r\n]/.test(p));
    const input = fc.array(noBreaks, { maxLength: 12 }).map((ps) => ps.join(''));
    fc.assert(
      fc.property(
        input.chain((s) => fc.tuple(fc.constant(s), cuts(s))),
        ([s, at]) => {
          expect(joinText(keysOfChunks(cutAt(s, at)))).toEqual(joinText(keysOf(s)));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
