// The thinking level as an ACP session config option (category "thought_level"): announced with
// session/new and session/load, set by session/set_config_option, and echoed by a
// config_option_update notification. ACP's session modes stay the permission presets.
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import { THINKING_LEVELS, type ThinkingLevel } from '../model/thinking-levels.js';

export const THOUGHT_LEVEL_ID = 'thought_level';

const NAMES: Record<ThinkingLevel, { name: string; description: string }> = {
  off: { name: 'Off', description: 'No extended reasoning (the least the model takes)' },
  low: { name: 'Low', description: 'A little reasoning: a small thinking budget or low effort' },
  medium: { name: 'Medium', description: 'More reasoning, at more output tokens' },
  high: { name: 'High', description: 'The most reasoning mini-agent asks for: the slowest and costliest' },
};

export function configOptions(current: ThinkingLevel): SessionConfigOption[] {
  return [
    {
      id: THOUGHT_LEVEL_ID,
      name: 'Thinking',
      description: 'How much the model reasons before it answers (--thinking); models without reasoning control ignore it',
      category: 'thought_level',
      type: 'select',
      currentValue: current,
      options: THINKING_LEVELS.map((value) => ({ value, ...NAMES[value] })),
    },
  ];
}
