// The summarizer's prompts and the check of what it returns. A summary is kept only when it has
// every section the next turns depend on; otherwise nothing is compacted and nothing is lost.

export const SUMMARY_SYSTEM_PROMPT = [
  'You summarize a coding agent\'s conversation so that the agent can continue the work after the',
  'older messages are removed from its context. The agent will see only your summary and the',
  'most recent messages. Be factual and specific; never invent anything; keep exact file paths,',
  'names, commands, numbers and error messages verbatim. Write Markdown. Do not address the user.',
].join(' ');

/** The sections a conversation summary must have, in order. */
export const SUMMARY_SECTIONS = ['Goal', 'Constraints and preferences', 'Progress', 'Key decisions', 'Next steps', 'Critical context'] as const;

/** The sections of a summary of the current turn's beginning (a cut inside a long turn). */
export const TURN_SECTIONS = ['Task', 'Done so far', 'Critical context'] as const;

const FORMAT = `Use exactly these sections:

## Goal
What the user wants, in one or two sentences.

## Constraints and preferences
Everything the user asked for or ruled out (style, tools, scope, "never do X").

## Progress
### Done
### In progress
### Blocked

## Key decisions
Each decision and why it was made.

## Next steps
What the agent should do next, in order.

## Critical context
Exact file paths, function and variable names, commands, error messages and values that the
next steps need. Quote them verbatim.`;

const TURN_FORMAT = `Use exactly these sections:

## Task
What the user asked for in this turn.

## Done so far
The steps taken so far in this turn and what they found, in order.

## Critical context
Exact file paths, names, commands, error messages and values the remaining steps need.`;

function focusLine(focus: string | undefined): string {
  return focus ? `\nThe user asked the summary to focus on: ${focus}\n` : '';
}

/** A first summary of a conversation. */
export function initialPrompt(conversation: string, focus?: string): string {
  return `Summarize the conversation below.\n${focusLine(focus)}\n${FORMAT}\n\n<conversation>\n${conversation}\n</conversation>`;
}

/** An incremental update: the previous summary plus only what happened since. */
export function updatePrompt(previous: string, conversation: string, focus?: string): string {
  return `Below is the summary of the earlier conversation, then the messages that came after it. Update the summary: keep everything in it that still holds (goals, constraints, decisions, critical context), move finished work to Done, add the new progress, decisions and context, and rewrite Next steps. Do not drop facts from the earlier summary unless the new messages make them obsolete.\n${focusLine(focus)}\n${FORMAT}\n\n<previous-summary>\n${previous}\n</previous-summary>\n\n<new-messages>\n${conversation}\n</new-messages>`;
}

/** A summary of the beginning of the turn in progress (the rest of the turn stays in context). */
export function turnPrefixPrompt(conversation: string): string {
  return `The messages below are the beginning of the task the agent is working on right now; the rest of this task stays in its context. Summarize what was asked and what has been done so far, so that the agent can carry on.\n\n${TURN_FORMAT}\n\n<current-task>\n${conversation}\n</current-task>`;
}

/** The reduce step: partial summaries of consecutive parts (and an earlier summary, if any) merged into one. */
export function mergePrompt(parts: readonly string[], previous?: string, focus?: string): string {
  const earlier = previous ? `<earlier-summary>\n${previous}\n</earlier-summary>\n\n` : '';
  const body = parts.map((p, i) => `<part n="${i + 1}">\n${p}\n</part>`).join('\n\n');
  return `Below are summaries of consecutive parts of one conversation, oldest first${previous ? ', after the summary of what came before them' : ''}. Merge them into one summary of the whole conversation, keeping every goal, constraint, decision and piece of critical context that still holds.\n${focusLine(focus)}\n${FORMAT}\n\n${earlier}${body}`;
}

/** The sections of `required` that `summary` lacks (matched as Markdown headings, case-insensitively). */
export function missingSections(summary: string, required: readonly string[] = SUMMARY_SECTIONS): string[] {
  const headings = new Set<string>();
  for (const m of summary.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) headings.add(m[1].trim().toLowerCase().replace(/[*_:`]/g, ''));
  return required.filter((s) => ![...headings].some((h) => h === s.toLowerCase() || h.startsWith(s.toLowerCase())));
}

/** Why a summary cannot be used, or undefined when it can. */
export function summaryProblem(summary: string, required: readonly string[] = SUMMARY_SECTIONS): string | undefined {
  if (summary.trim() === '') return 'the summary came back empty';
  const missing = missingSections(summary, required);
  return missing.length ? `the summary lacks the section${missing.length === 1 ? '' : 's'} ${missing.map((s) => `"${s}"`).join(', ')}` : undefined;
}

/** The summary of a cut inside a turn: the background, then the current task so far, kept apart. */
export function mergeTurnSummary(history: string | undefined, turn: string): string {
  const current = `# The current task so far\n\n${turn.trim()}`;
  return history ? `# Background\n\n${history.trim()}\n\n${current}` : current;
}
