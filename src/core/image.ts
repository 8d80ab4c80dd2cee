// Images: what a file's first bytes say it is (by magic bytes, not by name), its size in pixels
// from its header, the tokens it is estimated to cost, and the text note that stands in for it
// where it cannot go (a model without vision). Pure: no I/O, no decoding of pixels.
import type { ImageContent } from './types.js';

export type ImageFormat = 'PNG' | 'JPEG' | 'GIF' | 'WebP';

export const IMAGE_MIME: Readonly<Record<ImageFormat, string>> = { PNG: 'image/png', JPEG: 'image/jpeg', GIF: 'image/gif', WebP: 'image/webp' };

/** The media types images may have (those both dialects take). */
export const IMAGE_MIME_TYPES: readonly string[] = Object.values(IMAGE_MIME);

/**
 * Tokens an image is estimated to cost when its size is not known, and at most: Anthropic bills
 * (width × height) / 750 and scales anything over about 1.15 megapixels down to fit, so no image
 * costs much more than 1,600 tokens; OpenAI's high detail costs at most 1,105 (6 tiles).
 */
export const IMAGE_TOKENS_MAX = 1_600;

/** The image format that `head` (a file's first bytes, 12 at least) starts with, by its magic bytes. */
export function sniffImage(head: Uint8Array): ImageFormat | undefined {
  const at = (i: number, bytes: number[]) => bytes.every((b, k) => head[i + k] === b);
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'PNG';
  if (at(0, [0xff, 0xd8, 0xff])) return 'JPEG';
  if (at(0, [0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return 'GIF';
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return 'WebP';
  return undefined;
}

/** The format of a media type (image/png …), or undefined for one no dialect takes. */
export function formatOfMime(mimeType: string): ImageFormat | undefined {
  const m = mimeType.toLowerCase() === 'image/jpg' ? 'image/jpeg' : mimeType.toLowerCase();
  return (Object.keys(IMAGE_MIME) as ImageFormat[]).find((f) => IMAGE_MIME[f] === m);
}

/** Width and height in pixels, read from the header of an image of `format`; undefined when the header is cut or malformed. */
export function imageDimensions(bytes: Uint8Array, format: ImageFormat): { width: number; height: number } | undefined {
  const u16be = (i: number) => (bytes[i] << 8) | bytes[i + 1];
  const u16le = (i: number) => bytes[i] | (bytes[i + 1] << 8);
  const u24le = (i: number) => bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16);
  const u32be = (i: number) => ((bytes[i] << 24) >>> 0) + (bytes[i + 1] << 16) + (bytes[i + 2] << 8) + bytes[i + 3];
  const ok = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : undefined);
  if (format === 'PNG') return bytes.length >= 24 ? ok(u32be(16), u32be(20)) : undefined;
  if (format === 'GIF') return bytes.length >= 10 ? ok(u16le(6), u16le(8)) : undefined;
  if (format === 'WebP') {
    if (bytes.length < 30) return undefined;
    const chunk = String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]);
    if (chunk === 'VP8 ') return ok(u16le(26) & 0x3fff, u16le(28) & 0x3fff);
    if (chunk === 'VP8L') {
      const b = (i: number) => bytes[21 + i];
      return ok(1 + (((b(1) & 0x3f) << 8) | b(0)), 1 + (((b(3) & 0x0f) << 10) | (b(2) << 2) | ((b(1) & 0xc0) >> 6)));
    }
    if (chunk === 'VP8X') return ok(1 + u24le(24), 1 + u24le(27));
    return undefined;
  }
  // JPEG: walk the segments to the first start-of-frame marker (SOF0–SOF15 but DHT, JPG, DAC).
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return ok(u16be(i + 7), u16be(i + 5));
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) i += 2;
    else i += 2 + u16be(i + 2);
  }
  return undefined;
}

/** The bytes a base64 text decodes to. */
export function base64Size(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/** What an image block holds, from its first bytes only (at most 64 KB decoded: enough for a JPEG's frame header after its metadata). */
export function describeImage(image: ImageContent): { format?: ImageFormat; width?: number; height?: number; bytes: number } {
  const head = Buffer.from(image.data.slice(0, 87_384), 'base64');
  const format = sniffImage(head) ?? formatOfMime(image.mimeType);
  const size = format ? imageDimensions(head, format) : undefined;
  return { ...(format ? { format } : {}), ...(size ?? {}), bytes: base64Size(image.data) };
}

/** Estimated tokens of an image: (width × height) / 750 as Anthropic counts, at most IMAGE_TOKENS_MAX; the maximum when the size is unknown. */
export function estimateImageTokens(image: ImageContent): number {
  const { width, height } = describeImage(image);
  if (width === undefined || height === undefined) return IMAGE_TOKENS_MAX;
  return Math.min(IMAGE_TOKENS_MAX, Math.max(1, Math.ceil((width * height) / 750)));
}

/** "1200×800 PNG, 84 KB": what an image is, for notes and displays. */
export function imageSummary(info: { format?: string; width?: number; height?: number; bytes: number }): string {
  const dims = info.width !== undefined && info.height !== undefined ? `${info.width}×${info.height} ` : '';
  return `${dims}${info.format ?? 'image'}, ${sizeText(info.bytes)}`;
}

/** "[image: shot.png, 1200×800 PNG, 84 KB — REASON]": the text that stands in for an image. */
export function imageNote(info: { name?: string; format?: string; width?: number; height?: number; bytes: number }, reason: string): string {
  return `[image: ${info.name ? `${info.name}, ` : ''}${imageSummary(info)} — ${reason}]`;
}

/** The note that replaces an image for a model that does not take images. */
export const NO_VISION = 'this model does not take images';

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The text of content blocks, each image shown as "[image: 1200×800 PNG, 84 KB]" on a line of its own (exports, traces, displays). */
export function textWithImages(content: ReadonlyArray<{ type: string; text?: string; data?: string; mimeType?: string }>): string {
  let out = '';
  for (const c of content) {
    if (c.type === 'text' && c.text !== undefined) out += c.text;
    else if (c.type === 'image' && c.data !== undefined) {
      const line = `[image: ${imageSummary(describeImage({ type: 'image', data: c.data, mimeType: c.mimeType ?? '' }))}]`;
      out += out === '' || out.endsWith('\n') ? line : `\n${line}`;
    }
  }
  return out;
}

/** Content for a model that does not take images: each image becomes a text note saying what it was. */
export function imagesAsNotes<T extends { type: string }>(content: readonly T[]): (T | { type: 'text'; text: string })[] {
  return content.map((c) => (c.type === 'image' ? { type: 'text' as const, text: imageNote(describeImage(c as unknown as ImageContent), NO_VISION) } : c));
}
