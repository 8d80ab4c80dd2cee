// An image made to fit what providers take. One set of limits serves both dialects, the tighter
// of the two:
// - Anthropic takes at most 5 MB per image (measured on the base64 text, so 3.75 MB of bytes) and
//   8000 px on the long edge (2000 px when a request holds more than 20 images); it recommends at
//   most 1568 px, and scales anything larger down on its side, which only costs upload and latency.
// - OpenAI takes up to 20 MB and scales high-detail images to fit 2048 px, then 768 px on the short edge.
// So images go out at most 1568 px on the long edge and 3.75 MB. jimp (pure JavaScript, no native
// code or download) decodes and scales; it is imported only when an image needs scaling, so a run
// without images (and `--version`) never loads it. jimp has no WebP codec: a WebP over the limits
// cannot be scaled, and the caller says so in a note.
import type { ImageFormat } from '../core/image.js';
import { describeImage, IMAGE_MIME, imageDimensions, imageNote, sniffImage } from '../core/image.js';
import type { ImageContent, TextContent } from '../core/types.js';
import type { ToolOutput } from './tool.js';

/** The long edge an image is scaled down to (Anthropic's recommended maximum). */
export const MAX_IMAGE_EDGE = 1568;
/** The most bytes an image may have: 5 MB of base64 (Anthropic's per-image cap) is 3.75 MB of bytes. */
export const MAX_IMAGE_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);
/** Files larger than this are not decoded at all (decoding holds every pixel in memory). */
export const MAX_IMAGE_FILE_BYTES = 50 * 1024 * 1024;

export interface FittedImage {
  /** The bytes to send and their format (a scaled GIF becomes a PNG; a PNG too large even scaled becomes a JPEG). */
  bytes: Buffer;
  format: ImageFormat;
  width: number;
  height: number;
  /** Set when the image was scaled or re-encoded: its size before. */
  original?: { width: number; height: number; bytes: number; format: ImageFormat };
}

/** Whether an image of this size (pixels unknown: undefined) fits the limits as it is. */
export function fitsLimits(bytes: number, width: number | undefined, height: number | undefined): boolean {
  return bytes <= MAX_IMAGE_BYTES && (width === undefined || height === undefined || Math.max(width, height) <= MAX_IMAGE_EDGE);
}

/**
 * The image as it should be sent: as it is when it fits, otherwise scaled down to MAX_IMAGE_EDGE
 * (and re-encoded as JPEG at lower quality, then smaller, while it is still over MAX_IMAGE_BYTES).
 * Throws an Error saying why for an image that cannot be fitted (a WebP, a file jimp cannot decode).
 */
export async function fitImage(bytes: Buffer, format: ImageFormat, size: { width: number; height: number } | undefined): Promise<FittedImage> {
  if ((size || format === 'WebP') && fitsLimits(bytes.length, size?.width, size?.height)) return { bytes, format, width: size?.width ?? 0, height: size?.height ?? 0 };
  if (format === 'WebP') throw new Error(`it is over the limits (${MAX_IMAGE_EDGE} px on the long edge, ${MAX_IMAGE_BYTES} bytes) and WebP images cannot be scaled here; convert it to PNG or JPEG`);
  if (bytes.length > MAX_IMAGE_FILE_BYTES) throw new Error(`it is too large to decode (over ${MAX_IMAGE_FILE_BYTES / (1024 * 1024)} MB)`);
  const { Jimp } = await import('jimp');
  let image;
  try {
    image = await Jimp.read(bytes);
  } catch (err) {
    throw new Error(`it could not be decoded (${(err as Error).message})`);
  }
  const original = { width: image.bitmap.width, height: image.bitmap.height, bytes: bytes.length, format };
  if (Math.max(original.width, original.height) > MAX_IMAGE_EDGE) image.scaleToFit({ w: MAX_IMAGE_EDGE, h: MAX_IMAGE_EDGE });
  // A JPEG stays a JPEG; PNG and GIF (whose animation a still image cannot keep) become PNG, with their transparency.
  let out: { bytes: Buffer; format: ImageFormat } = format === 'JPEG' ? { bytes: await image.getBuffer('image/jpeg', { quality: 85 }), format } : { bytes: await image.getBuffer('image/png'), format: 'PNG' };
  for (let quality = 80; out.bytes.length > MAX_IMAGE_BYTES; quality -= 15) {
    if (quality < 50) image.scaleToFit({ w: Math.floor(image.bitmap.width * 0.75), h: Math.floor(image.bitmap.height * 0.75) });
    out = { bytes: await image.getBuffer('image/jpeg', { quality: Math.max(quality, 50) }), format: 'JPEG' };
    if (image.bitmap.width < 64) break; // cannot happen with the byte cap above; bounds the loop anyway
  }
  return { ...out, width: image.bitmap.width, height: image.bitmap.height, original };
}

/**
 * A tool output with each image made to fit (images from elsewhere: MCP tools). An image whose
 * bytes are not the image they claim, or that cannot be fitted, becomes a text note saying why.
 */
export async function fitOutputImages(output: ToolOutput): Promise<ToolOutput> {
  if (typeof output.content === 'string' || !output.content.some((c) => c.type === 'image')) return output;
  const content: (TextContent | ImageContent)[] = [];
  for (const c of output.content) {
    if (c.type !== 'image') {
      content.push(c);
      continue;
    }
    const bytes = Buffer.from(c.data, 'base64');
    const format = sniffImage(bytes);
    if (!format) {
      content.push({ type: 'text', text: imageNote(describeImage(c), `not sent: its bytes are not a PNG, JPEG, GIF or WebP image (it says ${c.mimeType})`) });
      continue;
    }
    try {
      const fit = await fitImage(bytes, format, imageDimensions(bytes, format));
      content.push(fit.original ? { type: 'image', data: fit.bytes.toString('base64'), mimeType: IMAGE_MIME[fit.format] } : { ...c, mimeType: IMAGE_MIME[format] });
    } catch (err) {
      content.push({ type: 'text', text: imageNote(describeImage(c), `not sent: ${(err as Error).message}`) });
    }
  }
  return { ...output, content };
}
