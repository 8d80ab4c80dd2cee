// The summarizer's prompts and the check of what it returns. A summary is kept only when it has
// every section the next turns depend on; otherwise nothing is compacted and nothing is lost.

export const SUMMARY_SYSTEM_PROMPT = [
  "You summarize a coding agent's conversation so that the agent can continue the work after the",
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

/**
 * A heading's words, for a tolerant match: case, `&`/`and`, punctuation, emphasis and numbering
 * ("1.", "2)", "IV.") do not matter. "## 2. Constraints & Preferences:" → "constraints and preferences".
 */
export function headingKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/^\s*(?:\d+|[ivx]+)[.):]\s+/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The headings of a summary: Markdown headings, and lines that are only a bold or numbered title. */
function headingsOf(summary: string): string[] {
  const found: string[] = [];
  for (const line of summary.split('\n')) {
    const md = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (md) {
      found.push(headingKey(md[1]));
      continue;
    }
    // "**Goal**", "**Goal:**", "1. Goal", "Goal:" alone on a line: a title only when nothing else is on it.
    const bare = /^\s*(?:\*\*|__)?\s*((?:\d+[.)]\s*)?[^*_:]{1,60}?)\s*:?\s*(?:\*\*|__)?\s*:?\s*$/.exec(line);
    if (bare && /(\*\*|__|:\s*$|^\s*\d+[.)])/.test(line)) found.push(headingKey(bare[1]));
  }
  return found;
}

/** The sections of `required` that `summary` lacks (matched tolerantly as headings: see `headingKey`). */
export function missingSections(summary: string, required: readonly string[] = SUMMARY_SECTIONS): string[] {
  const headings = headingsOf(summary);
  return required.filter((s) => {
    const want = headingKey(s);
    return !headings.some((h) => h === want || h.startsWith(`${want} `));
  });
}

/** The reminder sent with the one retry of a summary that lacks sections. */
export function formatReminder(problem: string, required: readonly string[]): string {
  return `\n\nYour previous answer could not be used: ${problem}. Answer again with exactly these Markdown headings, in this order, each on its own line: ${required.map((s) => `"## ${s}"`).join(', ')}.`;
}

/** The length limit added when a summary came out larger than what it replaces. */
export function lengthLimit(maxWords: number): string {
  return `\n\nKeep the whole summary under ${maxWords} words: shorten every section, keep every heading.`;
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
