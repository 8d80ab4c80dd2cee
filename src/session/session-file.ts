// Reading and appending session files. Parsing is pure (text in, entries and
// warnings out); the append sink is the only place that writes.
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { readAt } from '../core/read-at.js';
import { SESSION_FORMAT_VERSION, type SessionEntry, type SessionHeader } from './entries.js';
import { readEntry } from './entry-shape.js';
import { SessionFileError } from './session-file-error.js';

export { SessionFileError };

export interface ParsedSession {
  header: SessionHeader;
  entries: SessionEntry[];
  warnings: string[];
  /** The file does not end with a newline: the next append must start a new line first. */
  needsNewline: boolean;
}

/**
 * Parses a whole session file. Throws SessionFileError when the header is missing or unusable.
 * Works on the raw bytes, line by line, so a large file is never held as one giant string.
 */
export function parseSessionText(input: string | Buffer, label: string): ParsedSession {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const warnings: string[] = [];
  const needsNewline = buf.length > 0 && buf[buf.length - 1] !== 0x0a;
  let start = 0;
  let lineNo = 0;
  const nextLine = (): string | undefined => {
    if (start >= buf.length) return undefined;
    let end = buf.indexOf(0x0a, start);
    if (end < 0) end = buf.length;
    const line = buf.toString('utf8', start, end);
    start = end + 1;
    lineNo++;
    return line;
  };
  const header = parseHeader(nextLine(), label);
  const entries: SessionEntry[] = [];
  const seen = new Set<string>();
  for (let line = nextLine(); line !== undefined; line = nextLine()) {
    if (line.trim() === '') continue;
    const isLast = start >= buf.length;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      warnings.push(isLast && needsNewline ? `${label}: line ${lineNo} is incomplete (torn write, ${line.length} chars); it is set aside and the next entry starts on a new line` : `${label}: line ${lineNo} is not valid JSON; skipped`);
      continue;
    }
    const read = readEntry<SessionEntry>(value);
    if ('problem' in read) {
      warnings.push(`${label}: line ${lineNo}: ${read.problem}; skipped`);
      continue;
    }
    const entry = read.entry;
    if (seen.has(entry.id)) {
      warnings.push(`${label}: line ${lineNo}: duplicate entry id "${entry.id}"; skipped`);
      continue;
    }
    seen.add(entry.id);
    entries.push(entry);
  }
  return { header, entries, warnings, needsNewline };
}

function parseHeader(line: string | undefined, label: string): SessionHeader {
  const refuse = (why: string) => new SessionFileError(`${label}: ${why}; refusing to use it (the file was not modified)`);
  if (line === undefined || line.trim() === '') throw refuse('the session header (line 1) is missing');
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw refuse('line 1 is not a readable session header (invalid JSON)');
  }
  const h = value as Partial<SessionHeader> | null;
  if (typeof h !== 'object' || h === null || h.type !== 'session') {
    throw refuse('line 1 is not a session header (expected {"type":"session",...})');
  }
  if (typeof h.version !== 'number' || !Number.isInteger(h.version) || h.version < 1) {
    throw refuse('the session header has no valid "version"');
  }
  if (h.version > SESSION_FORMAT_VERSION) {
    throw refuse(`it uses session format version ${h.version}, newer than this mini-agent understands (${SESSION_FORMAT_VERSION}); upgrade mini-agent`);
  }
  if (typeof h.id !== 'string' || h.id === '') throw refuse('the session header has no "id"');
  return {
    ...(h as SessionHeader),
    cwd: typeof h.cwd === 'string' ? h.cwd : '',
    timestamp: typeof h.timestamp === 'string' ? h.timestamp : '',
  };
}

/** Where appended lines go. Each call to `appendLine` is one whole line in one write. */
export interface EntrySink {
  appendLine(line: string): void;
  sync(): void;
  close(): void;
}

export class MemorySink implements EntrySink {
  readonly lines: string[] = [];
  appendLine(line: string): void {
    this.lines.push(line);
  }
  sync(): void {}
  close(): void {}
}

/** Appends to a file opened with O_APPEND, so every write lands at the end and nothing is overwritten. */
export class FileSink implements EntrySink {
  private fd: number | undefined;
  constructor(
    readonly path: string,
    private needsNewline = false,
  ) {}

  appendLine(line: string): void {
    if (this.fd === undefined) this.fd = openSync(this.path, 'a');
    // A torn tail from an earlier crash is set aside by starting a new line, in the same write.
    const text = (this.needsNewline ? '\n' : '') + line + '\n';
    const buf = Buffer.from(text, 'utf8');
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    } catch (err) {
      // A failed write (disk full) may have left a fragment: set it aside like a torn tail.
      this.needsNewline = true;
      throw err;
    }
    this.needsNewline = false;
  }

  sync(): void {
    if (this.fd !== undefined) fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}

/** The header line of an open file, parsed; undefined when it is not a JSON object. */
export function readHeaderAt(fd: number): Partial<SessionHeader> | undefined {
  try {
    const h = JSON.parse(readAt(fd, 0, 8192).toString('utf8').split('\n')[0]) as Partial<SessionHeader>;
    return typeof h === 'object' && h !== null ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Reads only the header line of `file`; undefined when it is missing or unreadable. */
export function readHeader(file: string): Partial<SessionHeader> | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    return readHeaderAt(fd);
  } finally {
    closeSync(fd);
  }
}
