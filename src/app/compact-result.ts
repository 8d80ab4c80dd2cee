// The SDK's CompactResult from the runner's compaction outcome.
import type { CompactOutcome } from '../agent/compactor.js';
import type { CompactResult } from './types.js';

export function compactResult(out: CompactOutcome): CompactResult {
  if (!out.ok) return out;
  const { entry } = out;
  return {
    ok: true,
    entryId: entry.id,
    tokensBefore: out.tokensBefore,
    tokensAfter: out.tokensAfter,
    summarizedEntries: entry.summarizedIds?.length ?? 0,
    readFiles: entry.details?.readFiles ?? [],
    modifiedFiles: entry.details?.modifiedFiles ?? [],
  };
}
