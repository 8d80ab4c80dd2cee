// The thinking levels (`--thinking`), apart from their mapping (thinking.ts): the flags use them,
// on the path of `--version`, where every byte loaded counts.
import { THINKING_LEVELS, type ThinkingLevel } from '../core/config-choices.js';

export { THINKING_LEVELS, type ThinkingLevel };

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
  return typeof value === 'string' && (THINKING_LEVELS as readonly string[]).includes(value);
}
