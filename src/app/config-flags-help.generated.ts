// Generated from the config table (src/core/config-table.ts) by `npm run gen:config-docs`; do not edit.
// The --help lines of the flags that set a config key, by key. test/config-table.test.ts holds it fresh.
export const CONFIG_FLAG_HELP = {
  "provider": "  --provider NAME     openai | anthropic | deepseek | openrouter | ollama | openai-compatible",
  "model": "  --model ID          the model id (default: the provider's preset)",
  "baseUrl": "  --base-url URL      the API base URL, as the SDK takes it (OpenAI-style URLs end in /v1)",
  "apiKey": "  --api-key KEY       the API key (default: the provider's env var, e.g. OPENAI_API_KEY)",
  "maxTurns": "  --max-turns N       stop after N model turns (default 50)",
  "compaction.enabled": "  --no-compact        never compact automatically (not even when the context overflows)",
  "bash.timeoutSeconds": "  --bash-timeout S    bash's default timeout in seconds (default 120)",
  "allowPaths": "  --allow-path DIR    let file tools use DIR outside the workspace too (repeatable)",
  "tools": "  --tools LIST        the tools that are on, comma-separated (default: all: read_file, list_dir, grep, find,\n                      write_file, edit_file, write_note, bash)",
  "contextFiles.enabled": "  --no-context-files  leave AGENTS.md / CLAUDE.md out of the system prompt",
  "budget.maxCostUsd": "  --max-cost USD      stop before a request that could take the run past USD dollars (exit 3; needs known prices)",
  "thinking": "  --thinking LEVEL    how much the model reasons: off (default), low, medium, high",
} as const;

// Those flags' util.parseArgs specs, by flag name (app/flags.ts adds the flags that set no key).
export const CONFIG_FLAG_SPECS = {
  "provider": {"type":"string"},
  "model": {"type":"string"},
  "base-url": {"type":"string"},
  "api-key": {"type":"string"},
  "max-turns": {"type":"string"},
  "no-compact": {"type":"boolean","default":false},
  "bash-timeout": {"type":"string"},
  "allow-path": {"type":"string","multiple":true},
  "tools": {"type":"string"},
  "no-context-files": {"type":"boolean","default":false},
  "max-cost": {"type":"string"},
  "thinking": {"type":"string"},
} as const;

// How each is read into an agent option, in the order of the table (app/flags.ts agentFlagsFrom).
export const CONFIG_FLAG_READS = {
  "provider": {"key":"provider","option":"provider","kind":"text"},
  "model": {"key":"model","option":"model","kind":"text"},
  "base-url": {"key":"baseUrl","option":"baseUrl","kind":"text"},
  "api-key": {"key":"apiKey","option":"apiKey","kind":"text"},
  "max-turns": {"key":"maxTurns","option":"maxTurns","kind":"whole","min":1},
  "no-compact": {"key":"compaction.enabled","option":"compact","kind":"off"},
  "bash-timeout": {"key":"bash.timeoutSeconds","option":"bashTimeout","kind":"whole","min":1,"unit":"seconds"},
  "allow-path": {"key":"allowPaths","option":"allowPaths","kind":"repeat","needs":"a folder"},
  "tools": {"key":"tools","option":"enabledTools","kind":"comma","needs":"a comma-separated list of tool names, e.g. --tools read_file,grep"},
  "no-context-files": {"key":"contextFiles.enabled","option":"contextFiles","kind":"off"},
  "max-cost": {"key":"budget.maxCostUsd","option":"maxCost","kind":"amount","above":0,"unit":"US dollars"},
  "thinking": {"key":"thinking","option":"thinking","kind":"choice","values":["off","low","medium","high"]},
} as const;
