// The process entry of RPC mode (`mini-agent --rpc`; bin/mini-agent picks this bundle when the
// flag is given): runRpc (run-rpc.ts) with the process's own io, stdout kept for the protocol
// alone (takeOverStdout), and the exit once it is flushed.
import { processIo } from '../app/front-end-io.js';
import { takeOverStdout } from './rpc-mode.js';
import { runRpc } from './run-rpc.js';

const protocol = takeOverStdout();
runRpc(process.argv.slice(2), processIo(), protocol).then(
  async (code) => {
    await protocol.flushed();
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`mini-agent: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
