// The values of the configuration's choice keys (`thinking`, `cache.retention`, `bash.sandbox`),
// declared once: the config table (config-table.ts) builds their schemas from these lists, and
// the blocks that act on them (model/thinking-levels.ts, model/cache.ts, tools/sandbox.ts) take
// their types from here. Small on purpose: the thinking levels are on the path of the CLI's flags.

/** How much the model reasons (model/thinking.ts maps each level to a provider's request). */
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** `none`: no cache_control is sent; `5m` and `1h`: Anthropic's two time-to-live values. */
export const CACHE_RETENTIONS = ['none', '5m', '1h'] as const;
export type CacheRetention = (typeof CACHE_RETENTIONS)[number];

/** `auto`: sandbox where one works, else run without and say so; `required`: refuse without one; `off`: never. */
export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
