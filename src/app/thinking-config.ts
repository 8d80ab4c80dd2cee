// The `thinking` setting (config files, --thinking, the SDK option): checked, with its source in the error.
import { UsageError } from '../core/types.js';
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from '../model/thinking.js';

export function thinkingLevel(value: unknown, source: string | undefined): ThinkingLevel {
  if (isThinkingLevel(value)) return value;
  throw new UsageError(`thinking${source ? ` (from ${source})` : ''} must be one of ${THINKING_LEVELS.join(', ')}, got ${JSON.stringify(value)}`);
}
