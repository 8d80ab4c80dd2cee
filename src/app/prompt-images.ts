// Images attached to a prompt: given with it (the SDK's and RPC's `images`, ACP's image blocks,
// `--image FILE`), and named in its text by `@path` tokens. Each is checked (a PNG, JPEG, GIF or
// WebP by its bytes, not its name or stated type) and made to fit the providers' limits
// (tools/image-fit.ts). The prompt's text is kept as it is: `@shot.png` stays in it, so the model
// knows which image is which.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatOfMime, IMAGE_MIME, imageDimensions, sniffImage, type ImageFormat } from '../core/image.js';
import type { ImageContent, TextContent } from '../core/types.js';
import { fitImage, MAX_IMAGE_FILE_BYTES } from '../tools/image-fit.js';
import { displayPath, resolveForRead, type Boundary } from '../tools/workspace.js';
import { AgentError } from './errors.js';

/** An image for a prompt: its bytes in base64 and its media type, or a file (relative paths start at the workspace). */
export type PromptImage = { data: string; mimeType: string } | { path: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The images of a prompt: the `given` ones in order, then those its `@path` tokens name (a token
 * naming an existing PNG, JPEG, GIF or WebP file in the workspace or an allowed folder; any other
 * token is left alone). A given image that is not valid, or that cannot be made to fit, is an
 * AgentError (invalid_argument) naming it; a `@path` image that cannot be made to fit becomes a
 * text note saying why (the text named it; the model should know it did not come).
 */
export async function promptImages(text: string, given: readonly PromptImage[] | undefined, boundary: Boundary): Promise<(TextContent | ImageContent)[]> {
  return fitImages(readPromptImages(text, given, boundary));
}

/** An image read for a prompt, not yet fitted: its bytes and how it is named (`strict`: a given image, whose failure is an error), or a note. */
export type ImageRead = { bytes: Buffer; shown: string; strict: boolean } | { note: string };

/**
 * The images of a prompt (as promptImages), every file read now, synchronously; only the scaling
 * (fitImages) waits. A given image that is not valid is an AgentError (invalid_argument) thrown here.
 */
export function readPromptImages(text: string, given: readonly PromptImage[] | undefined, boundary: Boundary): ImageRead[] {
  return [...readGivenImages(given, boundary.cwd), ...readAtPathImages(text, boundary)];
}

/** The images read, fitted to the providers' limits: a given one that cannot be is an AgentError, a `@path` one a note. */
export async function fitImages(reads: readonly ImageRead[]): Promise<(TextContent | ImageContent)[]> {
  const out: (TextContent | ImageContent)[] = [];
  for (const read of reads) {
    if ('note' in read) out.push({ type: 'text', text: read.note });
    else if (read.strict) out.push(await fitted(read.bytes, read.shown));
    else out.push(await fitted(read.bytes, read.shown).catch((err: Error): TextContent => ({ type: 'text', text: `[${err.message}]` })));
  }
  return out;
}

/** The images given with a prompt, checked and fitted (paths start at `cwd`); an AgentError (invalid_argument) names the first bad one. */
export async function givenImages(given: readonly PromptImage[] | undefined, cwd: string): Promise<ImageContent[]> {
  return (await fitImages(readGivenImages(given, cwd))) as ImageContent[];
}

function readGivenImages(given: readonly PromptImage[] | undefined, cwd: string): ImageRead[] {
  if (given !== undefined && !Array.isArray(given)) throw bad('images must be an array of {data, mimeType} or {path}');
  const out: ImageRead[] = [];
  for (const [i, image] of (given ?? []).entries()) {
    const what = `image ${i + 1}`;
    if (typeof image !== 'object' || image === null) throw bad(`${what} must be an object {data, mimeType} or {path}`);
    if ('path' in image) {
      if (typeof image.path !== 'string' || image.path === '') throw bad(`${what}: path must be a non-empty string`);
      out.push(checked(readImageFile(resolve(cwd, image.path), image.path), image.path));
      continue;
    }
    const { data, mimeType } = image as { data?: unknown; mimeType?: unknown };
    if (typeof data !== 'string' || data === '') throw bad(`${what}: data must be the image's bytes in base64, a non-empty string`);
    if (typeof mimeType !== 'string' || !formatOfMime(mimeType)) throw bad(`${what}: mimeType must be one of ${Object.values(IMAGE_MIME).join(', ')} (got ${JSON.stringify(mimeType)})`);
    const clean = data.replace(/\s+/g, '');
    if (!BASE64.test(clean)) throw bad(`${what}: data is not base64 (give the bytes in base64, without a "data:" prefix)`);
    out.push(checked(Buffer.from(clean, 'base64'), what));
  }
  return out;
}

/** A given image's bytes, which must be an image by their first bytes. */
function checked(bytes: Buffer, shown: string): ImageRead {
  if (!sniffImage(bytes)) throw bad(`${shown} is not a PNG, JPEG, GIF or WebP image (by its first bytes)`);
  return { bytes, shown, strict: true };
}

/** The images a text's `@path` tokens name (see promptImages), read now. */
function readAtPathImages(text: string, boundary: Boundary): ImageRead[] {
  const out: ImageRead[] = [];
  for (const real of atPathTargets(text, boundary)) {
    if (!isImageFile(real)) continue;
    const shown = `@${displayPath(boundary, real)}`;
    try {
      out.push({ bytes: readImageFile(real, shown), shown, strict: false });
    } catch (err) {
      out.push({ note: `[${(err as Error).message}]` });
    }
  }
  return out;
}

/** The files a text's `@path` tokens name (resolved through the boundary), each once, in order; a token that names no file is an ordinary @word. */
export function atPathTargets(text: string, boundary: Boundary): string[] {
  const out = new Set<string>();
  for (const token of atPaths(text)) {
    try {
      const real = resolveForRead(boundary, token);
      if (statSync(real).isFile()) out.add(real);
    } catch {
      // not a file in the workspace: an ordinary @word
    }
  }
  return [...out];
}

/** The `@path` tokens of a text: `@` at the start or after whitespace, up to whitespace; trailing punctuation is not part of it. */
export function atPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const path = m[1].replace(/^["'`(]+/, '').replace(/["'`),.;:!?]+$/, '');
    if (path !== '') out.push(path);
  }
  return out;
}

function isImageFile(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(16);
    readSync(fd, head, 0, 16, 0);
    return sniffImage(head) !== undefined;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readImageFile(file: string, shown: string): Buffer {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (err) {
    throw bad(`${shown}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (size > MAX_IMAGE_FILE_BYTES) throw bad(`${shown}: the image is too large (${size} bytes; at most ${MAX_IMAGE_FILE_BYTES})`);
  try {
    return readFileSync(file);
  } catch (err) {
    throw bad(`${shown}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

async function fitted(bytes: Buffer, shown: string): Promise<ImageContent> {
  const format: ImageFormat | undefined = sniffImage(bytes);
  if (!format) throw bad(`${shown} is not a PNG, JPEG, GIF or WebP image (by its first bytes)`);
  try {
    const fit = await fitImage(bytes, format, imageDimensions(bytes, format));
    return { type: 'image', data: fit.bytes.toString('base64'), mimeType: IMAGE_MIME[fit.format] };
  } catch (err) {
    throw bad(`${shown} cannot be attached: ${(err as Error).message}`);
  }
}

function bad(message: string): AgentError {
  return new AgentError('invalid_argument', message);
}
