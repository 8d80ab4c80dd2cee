// The thinking levels (`--thinking`), apart from their mapping (thinking.ts): the flags use them,
// on the path of `--version`, where every byte loaded counts.
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
  return typeof value === 'string' && (THINKING_LEVELS as readonly string[]).includes(value);
}
