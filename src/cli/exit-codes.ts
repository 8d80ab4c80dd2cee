// Exit codes: a contract for scripts. Documented in the README.
export const EXIT = {
  /** The run completed: the model answered without asking for more tools. */
  completed: 0,
  /** The model or the runtime failed (network, auth, script exhausted, internal error). */
  error: 1,
  /** The command line or an input file was wrong; nothing ran. */
  usage: 2,
  /** The run was stopped by a limit (--max-turns, or --max-cost before a request could pass the budget). */
  limit: 3,
  /** The model refused, or the provider's content filter stopped the response. */
  refused: 4,
  /** The loop guard stopped the run: the same tool call, with the same arguments, over and over. */
  loopDetected: 5,
  /** Aborted by SIGINT (Ctrl-C): 128 + 2. */
  sigint: 130,
  /** Aborted by SIGTERM: 128 + 15. */
  sigterm: 143,
} as const;
