// Reading a few bytes of an open file at a position, whole: readSync may return fewer bytes than
// asked for before the end of the file, so it is called until the bytes are in or the file ends.
import { readSync } from 'node:fs';

/** Up to `length` bytes of the file at `position` (fewer only where the file ends first). */
export function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}
