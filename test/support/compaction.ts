// Summarizers for compaction tests: they stand in for the model's summary call, so a test can
// decide what comes back (a whole summary, an empty one, one without its sections, a failure) and
// see exactly what was asked.
import type { CompactionConfig, Summarizer } from '../../src/agent/compactor.js';
import { compactionSettings } from '../../src/session/compaction-plan.js';
import type { ScriptTurn } from '../../src/model/script.js';
import { SUMMARY_SECTIONS, TURN_SECTIONS } from '../../src/session/summary-prompts.js';

export interface RecordedSummaryRequest {
  systemPrompt: string;
  prompt: string;
}

/** A summary with every required section (or the turn sections), each holding `body`. */
export function wholeSummary(body: string, sections: readonly string[] = SUMMARY_SECTIONS): string {
  return sections.map((s) => `## ${s}\n${body}`).join('\n\n');
}

/**
 * A summarizer that "remembers" by quoting: every line of the text it was given (previous summary
 * and conversation) that holds a fact marker goes into Critical context. Deterministic, and it
 * forgets whatever the serialization dropped, which is what a memory-loss test must catch.
 */
export function quotingSummarizer(requests: RecordedSummaryRequest[] = [], marker = /FACT:[^\n]*/g): Summarizer {
  return async ({ systemPrompt, prompt }) => {
    requests.push({ systemPrompt, prompt });
    const facts = [...new Set(prompt.match(marker) ?? [])];
    const turn = prompt.includes('<current-task>');
    const sections = turn ? TURN_SECTIONS : SUMMARY_SECTIONS;
    return sections.map((s) => `## ${s}\n${/critical/i.test(s) ? facts.join('\n') || '(none)' : `summary of ${s.toLowerCase()}`}`).join('\n\n');
  };
}

/** A compaction config around `summarize`, for a window of `contextWindow` tokens. */
export function compactionFor(summarize: Summarizer, contextWindow: number, set: { reserveTokens?: number; keepRecentTokens?: number; enabled?: boolean } = {}): CompactionConfig {
  return { enabled: set.enabled ?? true, settings: compactionSettings(contextWindow, set), summarize, model: 'test/summarizer' };
}

/** A scripted model turn that answers a summary request with every section the prompts ask for. */
export const summaryTurn = (body: string): ScriptTurn => ({ text: wholeSummary(body, [...SUMMARY_SECTIONS, ...TURN_SECTIONS]) });
