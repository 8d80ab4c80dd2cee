// Where a command's output comes in. A child's stdio "pipe" in Node is a Unix socket pair already;
// reading it as a stream allocates a new buffer for every chunk, which the garbage collector frees
// only after tens of megabytes (a 100 MB output grew the process by about 40 MB). So the output
// arrives instead on a Unix socket connection made for the call through a private (0700) folder,
// read with `onread` into one reused buffer: nothing is allocated per chunk (the same 100 MB: about
// 2 MB). The child sees the same kind of stdout, a stream socket. Should that socket not be
// possible, an ordinary pipe is used. The chunk given to `onData` is valid only during the call.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';

export interface OutputChannel {
  /** What the child's stdout is, for spawn's `stdio`. */
  stdio: 'pipe' | Socket;
  /** Called once the child is spawned (it has its copy of the writing end). */
  attach(child: ChildProcess): void;
  /** Resolves when every writer has closed its end (or close() was called). */
  ended: Promise<void>;
  /** Stops reading (a background child may still hold the other end open). */
  close(): void;
}

const READ_BUFFER_BYTES = 256 * 1024;
const DIR_PREFIX = 'mini-agent-out-';
const SOCKET_NAME = 'out.sock';
/** sockaddr_un's sun_path is 108 bytes on Linux, 104 on macOS, with the final NUL. */
const MAX_SOCKET_PATH = 100;

/** The ordinary pipe: each chunk a new buffer. */
export function pipeChannel(onData: (chunk: Uint8Array) => void): OutputChannel {
  let stdout: ChildProcess['stdout'] = null;
  let end: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    stdio: 'pipe',
    ended,
    attach(child) {
      stdout = child.stdout;
      if (!stdout) return end();
      stdout.on('data', onData);
      stdout.once('close', end);
    },
    close() {
      stdout?.off('data', onData);
      stdout?.destroy();
      end();
    },
  };
}

/**
 * A connected socket pair made through a listening socket in a folder of its own under `tmpRoot`,
 * private (0700: whoever could connect first would be given the output). The listening socket and
 * its folder are gone before this returns.
 */
export async function socketChannel(tmpRoot: string, onData: (chunk: Uint8Array) => void): Promise<OutputChannel> {
  // A socket path longer than sockaddr_un holds may be cut short, to a place outside the private folder.
  const length = Buffer.byteLength(join(tmpRoot, `${DIR_PREFIX}XXXXXX`, SOCKET_NAME));
  if (length > MAX_SOCKET_PATH) throw new Error(`the socket path would be too long (${length} bytes) under ${tmpRoot}`);
  const dir = mkdtempSync(join(tmpRoot, DIR_PREFIX));
  const path = join(dir, SOCKET_NAME);
  const server = createServer();
  let reader: Socket | undefined;
  let childEnd: Socket | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const callback = (n: number, buf: Uint8Array) => {
      onData(buf.subarray(0, n));
      return true; // keep reading
    };
    const r = connect({ path, onread: { buffer, callback } });
    reader = r;
    await new Promise<void>((resolve, reject) => {
      r.once('error', reject);
      r.once('connect', () => resolve());
    });
    childEnd = await accepted;
  } catch (err) {
    reader?.destroy();
    throw err;
  } finally {
    server.close(); // stops listening and removes the socket file; the connection stays
    rmSync(dir, { recursive: true, force: true });
  }
  const ended = new Promise<void>((resolve) => reader!.once('close', () => resolve()));
  reader.on('error', () => undefined); // a reset at the far end is an end like any other
  const theirs = childEnd;
  theirs.on('error', () => undefined);
  return {
    stdio: theirs,
    ended,
    attach() {
      theirs.destroy(); // the child has its own copy; while this one is open the output would never end
    },
    close() {
      theirs.destroy();
      reader!.destroy();
    },
  };
}
