// Text files a prompt names by `@path` tokens (issue 24 §2), read into it as context: each file
// the token names (in the workspace or an allowed folder, through the same boundary as the tools)
// goes after the typed text as a `<file path="…">…</file>` block, up to PER_FILE_BYTES each and
// TOTAL_BYTES in all, with a note where it was cut. Images are prompt-images.ts's; a folder, a
// binary file or a word that names no file is left alone. A file a read deny rule covers
// (permissions.deny, as read_file would be refused) is not read: a note says so. The typed text
// is kept as it is.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { ImageContent, TextContent } from '../core/types.js';
import { sniffImage } from '../core/image.js';
import { decide, type PermissionPolicy } from '../tools/permissions.js';
import { isAbsolute } from 'node:path';
import { displayPath, type Boundary } from '../tools/workspace.js';
import { atPathTargets, fitImages, readPromptImages, type PromptImage } from './prompt-images.js';

/** The most bytes of one file read into a prompt. */
export const PER_FILE_BYTES = 20 * 1024;
/** The most bytes of all the files of one prompt. */
export const TOTAL_BYTES = 60 * 1024;

/** What a prompt carries after its text: the images (promptImages), then the text files its `@path` tokens name. */
export async function promptAttachments(text: string, given: readonly PromptImage[] | undefined, boundary: Boundary, policy: PermissionPolicy): Promise<(TextContent | ImageContent)[]> {
  return readAttachments(text, given, boundary, policy);
}

/**
 * What a message carries after its text, as promptAttachments, with every file read now: a steer
 * or a follow-up carries the files as they were when it was queued. Only the images' scaling is
 * left to the promise. A given image that is not valid is an AgentError thrown here.
 */
export function readAttachments(text: string, given: readonly PromptImage[] | undefined, boundary: Boundary, policy: PermissionPolicy): Promise<(TextContent | ImageContent)[]> {
  const images = readPromptImages(text, given, boundary);
  const files = atPathFiles(text, boundary, policy);
  return fitImages(images).then((fitted) => [...fitted, ...files]);
}

/** The `<file>` blocks of the text files a text's `@path` tokens name (see the header). */
export function atPathFiles(text: string, boundary: Boundary, policy: PermissionPolicy, caps = { perFile: PER_FILE_BYTES, total: TOTAL_BYTES }): TextContent[] {
  const out: TextContent[] = [];
  let left = caps.total;
  for (const real of atPathTargets(text, boundary)) {
    const shown = displayPath(boundary, real);
    const outside = isAbsolute(shown);
    const verdict = decide(policy, { tool: 'read_file', risk: 'read', paths: [shown], outsideWorkspace: outside });
    if (verdict.level === 'deny') {
      out.push({ type: 'text', text: `\n[@${shown} was not read: ${verdict.why} denies reading it.]` });
      continue;
    }
    const head = readHead(real, Math.min(caps.perFile, Math.max(0, left)) + 1);
    if (head === undefined) {
      out.push({ type: 'text', text: `\n[@${shown} could not be read.]` });
      continue;
    }
    if (sniffImage(head.bytes) !== undefined) continue; // an image: attached by promptImages
    if (head.bytes.includes(0)) {
      out.push({ type: 'text', text: `\n[@${shown} is a binary file (${head.size} bytes); not read into the prompt.]` });
      continue;
    }
    if (left <= 0) {
      out.push({ type: 'text', text: `\n[@${shown} was not read: the files of this prompt reached ${caps.total / 1024} KB; use read_file for it.]` });
      continue;
    }
    const room = Math.min(caps.perFile, left);
    const body = cutUtf8(head.bytes, room);
    left -= body.length;
    const cut = head.size > body.length;
    const why = room < caps.perFile ? `the files of this prompt reached ${caps.total / 1024} KB` : `${caps.perFile / 1024} KB per file`;
    const note = cut ? `\n[cut: the first ${body.length} of ${head.size} bytes (${why}); read_file gives the rest.]` : '';
    const content = body.toString('utf8');
    out.push({ type: 'text', text: `\n<file path="${shown.replace(/"/g, '&quot;')}">\n${content}${content.endsWith('\n') || content === '' ? '' : '\n'}</file>${note}` });
  }
  return out;
}

/** The first `max` bytes of a file and its size; undefined when it cannot be read. */
function readHead(file: string, max: number): { bytes: Buffer; size: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = statSync(file).size;
    const buf = Buffer.alloc(Math.max(16, Math.min(max, size)));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { bytes: buf.subarray(0, n), size };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** At most `max` bytes of `bytes`, not splitting a UTF-8 character. */
function cutUtf8(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** A user message's content without the `<file>` blocks promptAttachments added (what the user typed, and the images): for showing it again. */
export function withoutFiles<T extends { type: string; text?: string }>(content: readonly T[]): T[] {
  return content.filter((c) => !(c.type === 'text' && (c.text?.startsWith('\n<file path="') || c.text?.startsWith('\n[@'))));
}
