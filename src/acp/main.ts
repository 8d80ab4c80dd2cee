// The process entry of ACP mode (`mini-agent --acp`; bin/mini-agent picks this bundle when the
// flag is given). It runs runAcp (acp-mode.ts) with the process's own io, stdout taken over for
// the protocol (every other stdout write goes to stderr), and exits with its code once stdout is
// flushed. The only file under src/acp that touches `process`.
import { Writable } from 'node:stream';
import { processIo } from '../app/front-end-io.js';
import { runAcp } from './acp-mode.js';

const stdout = process.stdout;
const protocolWrite = stdout.write.bind(stdout) as (chunk: Uint8Array | string, done?: (err?: Error | null) => void) => boolean;
const toStderr = process.stderr.write.bind(process.stderr);
stdout.write = ((chunk: unknown, ...rest: unknown[]) => (toStderr as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof stdout.write;
stdout.on('error', () => undefined); // the client went away: runs still settle and sessions stay valid
/** What runAcp gets as stdout: the protocol's own way to the real one. */
const protocol = new Writable({ write: (chunk: Buffer, _encoding, done) => void protocolWrite(chunk, () => done()) });

runAcp(process.argv.slice(2), { ...processIo(), stdout: protocol }).then(
  async (code) => {
    await new Promise<void>((resolve) => void protocolWrite('', () => resolve()));
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`mini-agent: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
