// What a session's file checkpoints take, in words, as `sessions`, `/status` and `gc` show it.
import type { StoreUsage } from '../session/checkpoint-store.js';
import { formatBytes } from '../tools/truncate.js';

export { formatBytes };

/** `1.2 MB in 14 objects`; `(none)` for an empty store, or for a session in memory (null), which keeps none. */
export function checkpointsText(usage: StoreUsage | null): string {
  if (usage === null) return '(none: the session is kept in memory)';
  if (usage.objects === 0) return '(none)';
  return `${formatBytes(usage.bytes)} in ${usage.objects} ${usage.objects === 1 ? 'object' : 'objects'}`;
}
