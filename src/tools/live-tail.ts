// A running command's latest output, for a live view (ToolContext.onOutput): the end of its
// output file is read a few times a second (a positioned read of a few KB, as output-capture.ts
// reads it at the end), decoded, and passed on when it changed. Nothing is kept in memory.
import type { OutputFile } from './output-capture.js';

/** Bytes read from the end of the output each time. */
export const LIVE_TAIL_BYTES = 4096;
export const LIVE_TAIL_EVERY_MS = 250;

/** Starts watching `file`; the returned function stops (and sends the last change, if any). */
export function watchTail(file: OutputFile, onOutput: (tail: string) => void, everyMs = LIVE_TAIL_EVERY_MS): () => void {
  let last = '';
  let lastSize = 0;
  const look = () => {
    try {
      const size = file.size();
      if (size === lastSize) return;
      lastSize = size;
      const tail = file.tail(LIVE_TAIL_BYTES).tail.toString('utf8');
      if (tail !== last) {
        last = tail;
        onOutput(tail);
      }
    } catch {
      /* the file is closed or gone: the command has ended */
    }
  };
  const timer = setInterval(look, everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
