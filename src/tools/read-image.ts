// read_file on an image (PNG, JPEG, GIF or WebP, known by its first bytes): the image itself, made
// to fit the providers' limits (image-fit.ts), after a line saying what it is. A model that takes
// no images (ToolContext.images false) gets that line as a note instead, and so does an image that
// cannot be sent (a WebP over the limits, which cannot be scaled here; a file too large to decode).
import { closeSync, openSync, readSync } from 'node:fs';
import { imageDimensions, imageNote, imageSummary, IMAGE_MIME, NO_VISION, type ImageFormat } from '../core/image.js';
import { fitImage, MAX_IMAGE_FILE_BYTES } from './image-fit.js';
import type { ReadFileDetails } from './read-file.js';
import type { ToolContext, ToolOutput } from './tool.js';

/** Enough of a file to find a JPEG's frame header after its metadata. */
const HEADER_BYTES = 64 * 1024;

/** The result of read_file for the image file `real` (shown as `shown`) of `size` bytes. */
export async function readImageFile(real: string, shown: string, size: number, format: ImageFormat, ctx: Pick<ToolContext, 'images'>): Promise<ToolOutput<ReadFileDetails>> {
  const takeAll = ctx.images !== false && size <= MAX_IMAGE_FILE_BYTES;
  const bytes = readHead(real, takeAll ? size : Math.min(size, HEADER_BYTES));
  const dims = imageDimensions(bytes, format);
  const info = { name: shown, format, bytes: size, ...(dims ?? {}) };
  const details = { path: shown, sizeBytes: size, image: { format, ...(dims ?? {}) } };
  if (ctx.images === false) return { content: imageNote(info, NO_VISION), details: { ...details, sent: false } };
  if (!takeAll) return { content: imageNote(info, `not sent: files over ${MAX_IMAGE_FILE_BYTES / (1024 * 1024)} MB are not decoded`), details: { ...details, sent: false } };
  let fit;
  try {
    fit = await fitImage(bytes, format, dims);
  } catch (err) {
    return { content: imageNote(info, `not sent: ${(err as Error).message}`), details: { ...details, sent: false } };
  }
  const sent = { format: fit.format, width: fit.width, height: fit.height, bytes: fit.bytes.length };
  const scaled = fit.original ? ` (scaled down to ${imageSummary(sent)} to fit the provider's limits)` : '';
  return {
    content: [
      { type: 'text', text: `Image ${shown}: ${imageSummary(info)}${scaled}` },
      { type: 'image', data: fit.bytes.toString('base64'), mimeType: IMAGE_MIME[fit.format] },
    ],
    details: { ...details, sent: true, ...(fit.original ? { scaledTo: sent } : {}) },
  };
}

function readHead(file: string, length: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
