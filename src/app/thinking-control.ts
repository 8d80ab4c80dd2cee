// The agent's thinking level: set at start (SDK option, --thinking, config `thinking`), changed
// by setThinking (/thinking, the interactive key, RPC set_thinking, ACP's thought-level option),
// read by the loop as each assistant turn starts (a tool-use loop keeps its level: agent/loop.ts).
import { modelInfo } from '../model/models.js';
import { isThinkingLevel, THINKING_LEVELS, type ThinkingLevel } from '../model/thinking.js';
import { AgentError } from './errors.js';

export type { ThinkingLevel };

export interface ThinkingChange {
  level: ThinkingLevel;
  /** One line when the model cannot take the level (no reasoning control, or it always reasons); else null. */
  note: string | null;
}

export class ThinkingControl {
  constructor(
    private level: ThinkingLevel,
    private readonly model: () => string,
    /** Throws when the agent was closed. */
    private readonly check: () => void = () => undefined,
  ) {}

  get(): ThinkingLevel {
    return this.level;
  }

  /** The note for the level in force and the model in use (null when there is nothing to say). */
  note(): string | null {
    return thinkingNote(this.level, this.model()) ?? null;
  }

  set(level: ThinkingLevel): ThinkingChange {
    this.check();
    if (!isThinkingLevel(level)) throw new AgentError('invalid_argument', `unknown thinking level "${String(level)}" (levels: ${THINKING_LEVELS.join(', ')})`);
    this.level = level;
    return { level, note: this.note() };
  }
}

/** The one-line note for a level the model cannot take (undefined when there is nothing to say). */
export function thinkingNote(level: ThinkingLevel, model: string): string | undefined {
  if (level === 'off') return undefined;
  const reasoning = modelInfo(model).reasoning;
  if (reasoning === 'none') return `thinking ${level}: the model ${model} has no reasoning control that mini-agent knows of; nothing is sent for it`;
  if (reasoning === 'always') return `thinking ${level}: the model ${model} always reasons and takes no control; nothing is sent for it`;
  return undefined;
}
