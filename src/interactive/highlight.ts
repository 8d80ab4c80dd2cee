// Syntax highlighting of code blocks for the terminal: highlight.js (its core and a set of common
// languages, each registered on first use so that loading stays cheap) turned into styled spans,
// one row per source line. Unknown languages and errors give plain text, never an exception.
import type { Emitter } from 'highlight.js';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import type { Row, Span } from './terminal-text.js';

type LanguageFn = typeof bash;

/** The languages, by highlight.js name, with the ones they embed (HTML's <script> and <style>, a shell session's commands). */
const LANGUAGES: Record<string, { fn: LanguageFn; uses?: string[] }> = {
  bash: { fn: bash },
  c: { fn: c },
  cpp: { fn: cpp },
  css: { fn: css },
  diff: { fn: diff },
  go: { fn: go },
  java: { fn: java },
  javascript: { fn: javascript },
  json: { fn: json },
  markdown: { fn: markdown },
  python: { fn: python },
  rust: { fn: rust },
  shell: { fn: shell, uses: ['bash'] },
  sql: { fn: sql },
  typescript: { fn: typescript },
  xml: { fn: xml, uses: ['css', 'javascript'] },
  yaml: { fn: yaml },
};

/** Names a fence's info string may use for them. */
const ALIASES: Record<string, string> = {
  sh: 'bash',
  zsh: 'bash',
  ksh: 'bash',
  shellscript: 'bash',
  console: 'shell',
  shellsession: 'shell',
  'shell-session': 'shell',
  h: 'c',
  'c++': 'cpp',
  cc: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  node: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  jsonc: 'json',
  json5: 'json',
  md: 'markdown',
  mkd: 'markdown',
  py: 'python',
  python3: 'python',
  py3: 'python',
  golang: 'go',
  rs: 'rust',
  patch: 'diff',
  yml: 'yaml',
  html: 'xml',
  htm: 'xml',
  xhtml: 'xml',
  svg: 'xml',
  vue: 'xml',
};

/** Terminal styles of highlight.js scopes (the first part of a scope: "title" for "title.function"). */
const SCOPE_STYLES: Record<string, string> = {
  keyword: '35',
  'selector-tag': '35',
  doctag: '35',
  built_in: '36',
  type: '36',
  attr: '36',
  attribute: '36',
  property: '36',
  'selector-attr': '36',
  'selector-pseudo': '36',
  literal: '33',
  number: '33',
  symbol: '33',
  bullet: '33',
  'selector-class': '33',
  'selector-id': '33',
  'template-variable': '33',
  string: '32',
  addition: '32',
  regexp: '31',
  deletion: '31',
  title: '34',
  tag: '34',
  name: '34',
  section: '1;34',
  link: '4;34',
  comment: '90',
  quote: '90',
  meta: '90',
  subst: '39',
  emphasis: '3',
  strong: '1',
};

/**
 * highlight.js's emitter interface (startScope, addText, endScope… as it scans), turned into
 * styled spans as it goes: no HTML to build and then parse back. A scope without a style of its
 * own (or a sub-language's root) takes the style around it.
 */
class SpanEmitter implements Emitter {
  /** The text in order, each piece in its style; a piece may hold line breaks. */
  readonly pieces: Span[] = [];
  private readonly styles: string[] = [''];

  private get style(): string {
    return this.styles[this.styles.length - 1];
  }

  startScope(scope: string): void {
    const dot = scope.indexOf('.');
    this.styles.push(SCOPE_STYLES[dot < 0 ? scope : scope.slice(0, dot)] ?? this.style);
  }

  endScope(): void {
    if (this.styles.length > 1) this.styles.pop();
  }

  // highlight.js 11 also calls these two (its TokenTree's names) for a mode's own scope.
  openNode(scope: string): void {
    this.startScope(scope);
  }

  closeNode(): void {
    this.endScope();
  }

  addText(text: string): void {
    if (text !== '') this.pieces.push({ text, style: this.style });
  }

  __addSublanguage(emitter: Emitter): void {
    const around = this.style;
    if (emitter instanceof SpanEmitter) for (const p of emitter.pieces) this.pieces.push({ text: p.text, style: p.style || around });
  }

  finalize(): void {}

  toHTML(): string {
    return '';
  }
}

/**
 * A private highlight.js instance, emitting spans, and the languages registered on it so far.
 * Registering is the only change it sees, it happens once per language, and it does not change any result.
 */
const highlighter = hljs.newInstance();
highlighter.configure({ __emitter: SpanEmitter });

/** The highlight.js name for a fence's language (`ts`, `TypeScript`, `sh`…), or undefined when not one of ours. */
export function languageOf(lang: string | undefined): string | undefined {
  if (!lang) return undefined;
  const key = lang.toLowerCase();
  const name = ALIASES[key] ?? key;
  return Object.hasOwn(LANGUAGES, name) ? name : undefined;
}

function ensureRegistered(name: string): void {
  if (highlighter.getLanguage(name)) return;
  const language = LANGUAGES[name];
  for (const dep of language.uses ?? []) ensureRegistered(dep);
  highlighter.registerLanguage(name, language.fn);
}

/** Plain rows: one unstyled span per line. */
function plainRows(lines: string[]): Row[] {
  return lines.map((text) => (text === '' ? [] : [{ text, style: '' }]));
}

/**
 * `lines` of code in `lang`, highlighted together (constructs over several lines, like a block
 * comment, are seen whole), as one row of styled spans per line.
 */
export function highlightLines(lines: string[], lang: string | undefined): Row[] {
  const name = languageOf(lang);
  if (name === undefined) return plainRows(lines);
  let emitter: Emitter;
  try {
    ensureRegistered(name);
    const result = highlighter.highlight(lines.join('\n'), { language: name, ignoreIllegals: true });
    if (result.errorRaised) return plainRows(lines);
    emitter = result._emitter;
  } catch {
    return plainRows(lines);
  }
  return emitter instanceof SpanEmitter ? rowsOf(emitter.pieces) : plainRows(lines);
}

/** Styled pieces (holding line breaks) as one row per line. */
function rowsOf(pieces: Span[]): Row[] {
  const rows: Row[] = [];
  let row: Span[] = [];
  for (const p of pieces) {
    let start = 0;
    for (let nl = p.text.indexOf('\n'); nl >= 0; nl = p.text.indexOf('\n', start)) {
      if (nl > start) pushSpan(row, p.text.slice(start, nl), p.style);
      rows.push(row);
      row = [];
      start = nl + 1;
    }
    if (start < p.text.length) pushSpan(row, start === 0 ? p.text : p.text.slice(start), p.style);
  }
  rows.push(row);
  return rows;
}

/** Appends a span, merged into the last one when they have the same style. */
function pushSpan(row: Span[], text: string, style: string): void {
  const last = row[row.length - 1];
  if (last !== undefined && last.style === style) last.text += text;
  else row.push({ text, style });
}
