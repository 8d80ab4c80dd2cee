// Markdown → a tree of safe elements for the HTML export (src/session/markdown-html.ts): every
// block and inline kind, raw HTML kept as text, only http(s)/mailto link targets, images as
// links, and (property tests) no input ever yields an element, attribute or target outside the
// allowed sets. The page side (mdBuild in a browser) is tested in export-html.test.ts.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeEntities, HTML_ATTRIBUTES, HTML_TAGS, lexMarkdown, markdownToNodes, MAX_DEPTH, safeHref, textOf, type HtmlElement, type HtmlNode } from '../src/session/markdown-html.js';

const p = (...children: HtmlNode[]): HtmlElement => ({ tag: 'p', children });
const REL = 'noopener noreferrer nofollow';

/** Every element of the trees, depth first. */
function elements(nodes: HtmlNode[]): HtmlElement[] {
  return nodes.flatMap((n) => (typeof n === 'string' ? [] : [n, ...elements(n.children ?? [])]));
}
const tags = (nodes: HtmlNode[]) => elements(nodes).map((e) => e.tag);
const text = (nodes: HtmlNode[]) => nodes.map(textOf).join('');
function depth(nodes: HtmlNode[]): number {
  return Math.max(0, ...nodes.map((n) => (typeof n === 'string' ? 0 : 1 + depth(n.children ?? []))));
}

describe('markdownToNodes: the block kinds', () => {
  test('headings (ATX 1–6 and setext), paragraphs, soft and hard breaks', () => {
    expect(markdownToNodes('# One\n## Two\n### Three\n#### Four\n##### Five\n###### Six')).toEqual(['One', 'Two', 'Three', 'Four', 'Five', 'Six'].map((t, i) => ({ tag: `h${i + 1}`, children: [t] })));
    expect(markdownToNodes('Title\n=====\n\nSub\n---')).toEqual([
      { tag: 'h1', children: ['Title'] },
      { tag: 'h2', children: ['Sub'] },
    ]);
    expect(markdownToNodes('one\ntwo  \nthree\\\nfour\n\nnext')).toEqual([p('one\ntwo', { tag: 'br', children: [] }, 'three', { tag: 'br', children: [] }, 'four'), p('next')]);
  });

  test('fenced code (with a language class, contents verbatim), indented code, a fence left open', () => {
    expect(markdownToNodes('```TypeScript {x}\nconst a = 1 < 2 && "<b>" &amp;\n```')).toEqual([{ tag: 'pre', children: [{ tag: 'code', attrs: { class: 'language-typescript' }, children: ['const a = 1 < 2 && "<b>" &amp;'] }] }]);
    expect(markdownToNodes('~~~\n**not bold**\n~~~')).toEqual([{ tag: 'pre', children: [{ tag: 'code', children: ['**not bold**'] }] }]);
    const open = markdownToNodes('"><script>x\n```\n');
    expect(tags(open)).toEqual(['p', 'pre', 'code']);
    expect(text(open)).toBe('"><script>x');
    const indented = markdownToNodes('text\n\n    indented <b>\n      more');
    expect(tags(indented)).toEqual(['p', 'pre', 'code']);
    expect(text(indented)).toBe('textindented <b>\n  more');
    expect(markdownToNodes('```"><img src=x onerror=alert(1)>\ncode\n```')[0]).toEqual({ tag: 'pre', children: [{ tag: 'code', attrs: { class: 'language-img' }, children: ['code'] }] });
  });

  test('block quotes, nested', () => {
    expect(markdownToNodes('> quoted\n>\n> > deeper')).toEqual([{ tag: 'blockquote', children: [p('quoted'), { tag: 'blockquote', children: [p('deeper')] }] }]);
  });

  test('lists: unordered, ordered with a start, nested, loose, tasks', () => {
    expect(markdownToNodes('- a\n- b\n  - c')).toEqual([
      {
        tag: 'ul',
        children: [
          { tag: 'li', children: ['a'] },
          { tag: 'li', children: ['b', { tag: 'ul', children: [{ tag: 'li', children: ['c'] }] }] },
        ],
      },
    ]);
    expect(markdownToNodes('3. x\n4. y')).toEqual([
      {
        tag: 'ol',
        attrs: { start: '3' },
        children: [
          { tag: 'li', children: ['x'] },
          { tag: 'li', children: ['y'] },
        ],
      },
    ]);
    expect(markdownToNodes('1. x')).toEqual([{ tag: 'ol', children: [{ tag: 'li', children: ['x'] }] }]);
    expect(markdownToNodes('- a\n\n- b')).toEqual([
      {
        tag: 'ul',
        children: [
          { tag: 'li', children: [p('a')] },
          { tag: 'li', children: [p('b')] },
        ],
      },
    ]);
    expect(markdownToNodes('- [x] done\n- [ ] open')).toEqual([
      {
        tag: 'ul',
        children: [
          { tag: 'li', children: [{ tag: 'span', attrs: { class: 'task done' }, children: ['☑ '] }, 'done'] },
          { tag: 'li', children: [{ tag: 'span', attrs: { class: 'task' }, children: ['☐ '] }, 'open'] },
        ],
      },
    ]);
  });

  test('tables with alignment and inline content in cells', () => {
    expect(markdownToNodes('| a | b | c |\n|:--|:-:|--:|\n| 1 | **2** | `3` |')).toEqual([
      {
        tag: 'table',
        children: [
          {
            tag: 'thead',
            children: [
              {
                tag: 'tr',
                children: [
                  { tag: 'th', attrs: { class: 'align-left' }, children: ['a'] },
                  { tag: 'th', attrs: { class: 'align-center' }, children: ['b'] },
                  { tag: 'th', attrs: { class: 'align-right' }, children: ['c'] },
                ],
              },
            ],
          },
          {
            tag: 'tbody',
            children: [
              {
                tag: 'tr',
                children: [
                  { tag: 'td', attrs: { class: 'align-left' }, children: ['1'] },
                  { tag: 'td', attrs: { class: 'align-center' }, children: [{ tag: 'strong', children: ['2'] }] },
                  { tag: 'td', attrs: { class: 'align-right' }, children: [{ tag: 'code', children: ['3'] }] },
                ],
              },
            ],
          },
        ],
      },
    ]);
  });

  test('thematic breaks; link definitions render nothing but resolve references', () => {
    expect(markdownToNodes('a\n\n***\n\nb')).toEqual([p('a'), { tag: 'hr', children: [] }, p('b')]);
    expect(markdownToNodes('[docs][d]\n\n[d]: https://example.com/d "Docs"')).toEqual([p({ tag: 'a', attrs: { href: 'https://example.com/d', rel: REL, title: 'Docs' }, children: ['docs'] })]);
  });

  test('inline kinds: strong, em, del, code spans, escapes, entities', () => {
    expect(markdownToNodes('**b** *i* _j_ ~~d~~ `a<b>&amp;` \\*not em\\* &amp; &lt;x&gt; &#169; &copy; &bogus;')).toEqual([
      p(
        { tag: 'strong', children: ['b'] },
        ' ',
        { tag: 'em', children: ['i'] },
        ' ',
        { tag: 'em', children: ['j'] },
        ' ',
        { tag: 'del', children: ['d'] },
        ' ',
        { tag: 'code', children: ['a<b>&amp;'] },
        ' ',
        '*',
        'not em',
        '*',
        ' & <x> © © &bogus;',
      ),
    ]);
  });
});

describe('markdownToNodes: what must never become markup', () => {
  const RAW = ['<script>window.pwned=1</script>', '<img src=x onerror="window.pwned=1">', '<iframe src="https://evil.example/"></iframe>', '<a href="javascript:alert(1)">x</a>', '<style>body{display:none}</style>'];

  test.each(RAW)('raw HTML on its own line is text: %s', (html) => {
    const nodes = markdownToNodes(`${html}\n\nnext`);
    expect(tags(nodes)).toEqual([html.startsWith('<a ') ? 'p' : 'div', 'p']); // an inline tag opens no HTML block (CommonMark)
    expect(text(nodes)).toBe(`${html}next`);
  });

  test.each(RAW)('raw HTML inline is text: %s', (html) => {
    const nodes = markdownToNodes(`before ${html} after`);
    expect(tags(nodes)).toEqual(['p']);
    expect(text(nodes)).toBe(`before ${html} after`);
  });

  test.each([
    ['javascript:alert(1)'],
    ['JaVaScRiPt:alert(1)'],
    ['java&#115;cript:alert(1)'],
    ['javascript&#58;alert(1)'],
    ['%20javascript:alert(1)'],
    ['vbscript:msgbox(1)'],
    ['data:text/html,<script>alert(1)</script>'],
    ['data:image/png;base64,iVBORw0KGgo='],
    ['file:///etc/passwd'],
    ['/etc/passwd'],
    ['relative/page.html'],
    ['../up'],
    ['#fragment'],
    ['//evil.example/x'],
    ['<//evil.example/x>'],
    ['https:evil'],
    ['http:/evil'],
  ])('a link to %s is dropped, its text kept', (href) => {
    const nodes = markdownToNodes(`see [the *page*](${href}) now`);
    expect(tags(nodes)).toEqual(['p', 'em']);
    expect(text(nodes)).toBe('see the page now');
    const img = markdownToNodes(`![a pic](${href})`);
    expect(img).toEqual([p('image: a pic')]);
  });

  test('http(s) and mailto links are kept, with rel and a decoded title and target', () => {
    expect(markdownToNodes('[a](https://example.com/?q=1&amp;r=2 "x &amp; y") [b](HTTP://EXAMPLE.COM) <mailto:me@example.com> https://auto.example/p')).toEqual([
      p(
        { tag: 'a', attrs: { href: 'https://example.com/?q=1&r=2', rel: REL, title: 'x & y' }, children: ['a'] },
        ' ',
        { tag: 'a', attrs: { href: 'HTTP://EXAMPLE.COM', rel: REL }, children: ['b'] },
        ' ',
        { tag: 'a', attrs: { href: 'mailto:me@example.com', rel: REL }, children: ['mailto:me@example.com'] },
        ' ',
        { tag: 'a', attrs: { href: 'https://auto.example/p', rel: REL }, children: ['https://auto.example/p'] },
      ),
    ]);
  });

  test('images become links labelled "image: alt" (alt as plain text); there is no img element at all', () => {
    expect(markdownToNodes('![a **bold** `code` &amp; pic](https://example.com/p.png "T")')).toEqual([p({ tag: 'a', attrs: { href: 'https://example.com/p.png', rel: REL, class: 'image' }, children: ['image: a bold code & pic'] })]);
    expect(markdownToNodes('[![inner](https://example.com/i.png)](https://example.com/outer)')).toEqual([
      p({ tag: 'a', attrs: { href: 'https://example.com/outer', rel: REL }, children: [{ tag: 'a', attrs: { href: 'https://example.com/i.png', rel: REL, class: 'image' }, children: ['image: inner'] }] }),
    ]);
    expect(HTML_TAGS).not.toContain('img');
  });

  test('never throws: Markdown too deep for marked comes back as plain text', () => {
    const deep = `${'>'.repeat(5000)} x`;
    expect(markdownToNodes(deep)).toEqual([{ tag: 'div', attrs: { class: 'plain' }, children: [deep] }]);
    const stars = `${'*'.repeat(5000)}x${'*'.repeat(5000)}`;
    expect(markdownToNodes(stars)).toEqual([{ tag: 'div', attrs: { class: 'plain' }, children: [stars] }]);
  });

  test(`nesting deeper than ${MAX_DEPTH} elements is cut to plain text`, () => {
    const list = Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
    const nodes = markdownToNodes(list);
    expect(depth(nodes)).toBe(MAX_DEPTH);
    for (let i = 0; i < 60; i++) expect(text(nodes)).toContain(`level ${i}`);
  });
});

describe('safe by construction (property tests)', () => {
  const PIECES = [
    '<script>',
    '</script>',
    '<img src=x onerror=alert(1)>',
    '<iframe src=//e.x>',
    '<!--',
    '-->',
    '\u2028',
    '[a](',
    '](',
    ')',
    '![',
    'javascript:',
    'data:',
    'https://e.x/',
    '//e.x',
    'mailto:',
    '&#58;',
    '&amp;',
    '&#x3c;',
    '*',
    '**',
    '_',
    '`',
    '```',
    '~~~',
    '\n',
    '\n\n',
    '    ',
    '> ',
    '- ',
    '1. ',
    '# ',
    '|',
    '|---|',
    '- [ ] ',
    '\\',
    '"',
    "'",
    ' ',
    'a',
    'b',
  ];
  const markdown = fc.oneof(
    fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((a) => a.join('')),
    fc.string({ unit: 'binary', maxLength: 60 }),
  );
  const ATTRS = new Set<string>(HTML_ATTRIBUTES);
  const TAGS = new Set<string>(HTML_TAGS);

  test('only listed tags and attributes; every href is http(s) or mailto; classes are plain words', () => {
    fc.assert(
      fc.property(markdown, (md) => {
        for (const e of elements(markdownToNodes(md))) {
          expect(TAGS.has(e.tag), e.tag).toBe(true);
          for (const [k, v] of Object.entries(e.attrs ?? {})) {
            expect(ATTRS.has(k), k).toBe(true);
            expect(typeof v).toBe('string');
            if (k === 'href') expect(safeHref(v)).toBe(v);
            if (k === 'class') expect(v).toMatch(/^[a-z0-9+#_ -]+$/);
            if (k === 'start') expect(v).toMatch(/^\d+$/);
          }
          if (e.tag === 'a') expect(e.attrs?.href).toBeDefined();
        }
      }),
      { numRuns: 400 },
    );
  });

  test('safeHref keeps exactly the http(s) and mailto targets without spaces or controls', () => {
    expect(safeHref(' https://example.com/a ')).toBe('https://example.com/a');
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
    for (const bad of ['javascript:alert(1)', 'https://a b', 'https://a\nb', 'https:/x', '//x', 'x', '', 'data:,x', 'ftp://x']) expect(safeHref(bad)).toBeUndefined();
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const h = safeHref(s);
        if (h !== undefined) expect(h).toMatch(/^(https?:\/\/|mailto:)\S+$/i);
      }),
    );
  });
});

describe('the helpers the terminal renderer shares', () => {
  test('lexMarkdown and decodeEntities keep their behaviour', () => {
    expect(lexMarkdown('# a').map((t) => t.type)).toEqual(['heading']);
    expect(lexMarkdown('[x][r]', { r: { href: 'https://e.x', title: null } })[0]).toMatchObject({ type: 'paragraph', tokens: [{ type: 'link', href: 'https://e.x' }] });
    expect(decodeEntities('&lt;&#x41;&#66;&hellip;&nope;&#0;')).toBe('<AB…&nope;\ufffd');
  });

  test('every named entity HTML knows is decoded, not only the common ones; a name that only begins with one stays as written', () => {
    expect(decodeEntities('&alpha;&Omega;&spades;&rightarrow;&HilbertSpace;&fjlig;&NotEqualTilde;')).toBe('αΩ♠→ℋfj\u2242\u0338');
    expect(decodeEntities('&notit; &ampx; &not; &amp;')).toBe('&notit; &ampx; ¬ &');
    expect(markdownToNodes('&lambda; &rArr; &frac12;')).toEqual([{ tag: 'p', children: ['λ ⇒ ½'] }]);
  });
});
