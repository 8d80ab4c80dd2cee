// The memory-loss harness ("this is where small agents start lying to themselves"): a synthetic
// long session with facts planted in the part that will be compacted, compacted several times
// over with filler turns in between, and after each round a check of what survived: in the
// summary the model wrote, in the file lists taken from tool calls, and in the next request the
// model would get. A summary that drops an error message or a user constraint does so silently;
// only a probe like this sees it. Pure except for the injected summarizer: the session lives in
// memory and nothing touches the disk.
import { compactSession, type Summarizer } from '../agent/compactor.js';
import { emptyUsage, userMessage, type AssistantMessage, type Message, type ToolCall } from '../core/types.js';
import { liveEntries, type CompactionSettings } from '../session/compaction-plan.js';
import { stripFileLists } from '../session/file-lists.js';
import { projectMessages } from '../session/projector.js';
import { SessionStore } from '../session/store.js';
import { estimateMessageTokens } from '../session/tokens.js';

export type FactId = 'read-file' | 'modified-file' | 'decision' | 'error' | 'constraint';

export interface PlantedFact {
  id: FactId;
  /** What kind of memory it stands for, for a report. */
  description: string;
  /** The exact string that must survive: a path, an identifier, an error message. */
  needle: string;
}

/** The facts, each a string no filler turn contains. */
export const PLANTED_FACTS: readonly PlantedFact[] = [
  { id: 'read-file', description: 'a file read with read_file', needle: 'src/billing/ledger-reconcile.ts' },
  { id: 'modified-file', description: 'a file written with write_note', needle: 'notes/ledger-migration-plan.md' },
  { id: 'decision', description: 'a decision', needle: 'ledger_snapshots_v2' },
  { id: 'error', description: 'an exact error message', needle: 'LedgerMismatchError: expected balance 1042.17 but found 1039.90 for account ACC-7731' },
  { id: 'constraint', description: 'a user constraint', needle: 'vendor/payments-sdk' },
];

/** A pattern matching every needle (global): what a summarizer that remembers by quoting must find. */
export function factPattern(facts: readonly PlantedFact[] = PLANTED_FACTS): RegExp {
  return new RegExp(facts.map((f) => f.needle.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
}

export interface FactCheck {
  id: FactId;
  /** In the summary text the summarizer wrote (the file section mini-agent appends left out). */
  inSummary: boolean;
  /** In the compaction's structured lists (details.readFiles / modifiedFiles). */
  inFileLists: boolean;
  /** In the messages of the next request (the projection of the active path). */
  inNextRequest: boolean;
  /** Remembered by the compaction (summary or lists) and carried to the model. */
  kept: boolean;
}

export interface RoundReport {
  round: number;
  summarizedEntries: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Every entry that planted a fact was summarized (none is still in the context as it was). */
  factsCompacted: boolean;
  facts: FactCheck[];
  kept: number;
  planted: number;
  /** kept / planted. */
  score: number;
  lost: FactId[];
}

export interface MemoryReport {
  facts: readonly PlantedFact[];
  rounds: RoundReport[];
  /** After the last round that ran; null when none did. */
  kept: number;
  planted: number;
  score: number | null;
  lost: FactId[];
  /** A compaction failed (the summarizer threw or answered without its sections): the probe stopped there. */
  error?: { round: number; message: string };
}

export interface MemoryProbeOptions {
  summarize: Summarizer;
  /** The window and thresholds: filler is sized from keepRecentTokens so that each round compacts. */
  settings: CompactionSettings;
  rounds?: number;
  /** provider/model of the summarizer, recorded in the compaction entries. */
  model?: string;
  signal?: AbortSignal;
  /** Called after each round that compacted (progress for a front end). */
  onRound?: (round: RoundReport) => void;
}

const CWD = '/workspace';

/** Builds the session, compacts it `rounds` times (default 3) and reports what survived each round. */
export async function runMemoryProbe(o: MemoryProbeOptions): Promise<MemoryReport> {
  const rounds = o.rounds ?? 3;
  const signal = o.signal ?? new AbortController().signal;
  const store = SessionStore.inMemory({ cwd: CWD });
  const plantedIds = new Set(plantFacts(store).map((m) => m.id));
  const filler = new Filler(o.settings.keepRecentTokens);
  const report: MemoryReport = { facts: PLANTED_FACTS, rounds: [], kept: 0, planted: PLANTED_FACTS.length, score: null, lost: [] };
  for (let round = 1; round <= rounds; round++) {
    // Past the kept part by half of it again, so that each round summarizes a real stretch.
    filler.add(store, Math.ceil(o.settings.keepRecentTokens * 1.5));
    const config = { enabled: true, settings: o.settings, summarize: o.summarize, model: o.model ?? 'memory-probe/summarizer' };
    const out = await compactSession({ store, config, reason: 'manual', cwd: CWD, signal, emit: () => undefined });
    if (!out.ok) {
      report.error = { round, message: out.error };
      break;
    }
    const path = store.activePath();
    const summary = normalize(stripFileLists(out.entry.summary));
    const lists = out.entry.details ?? { readFiles: [], modifiedFiles: [] };
    const next = normalize(requestText(projectMessages(path)));
    const facts = PLANTED_FACTS.map((f): FactCheck => {
      const needle = normalize(f.needle);
      const inSummary = summary.includes(needle);
      const inFileLists = lists.readFiles.includes(f.needle) || lists.modifiedFiles.includes(f.needle);
      const inNextRequest = next.includes(needle);
      return { id: f.id, inSummary, inFileLists, inNextRequest, kept: (inSummary || inFileLists) && inNextRequest };
    });
    const kept = facts.filter((f) => f.kept).length;
    const r: RoundReport = {
      round,
      summarizedEntries: out.entry.summarizedIds?.length ?? 0,
      tokensBefore: out.tokensBefore,
      tokensAfter: out.tokensAfter,
      factsCompacted: !liveEntries(path).live.some((e) => plantedIds.has(e.id)),
      facts,
      kept,
      planted: facts.length,
      score: kept / facts.length,
      lost: facts.filter((f) => !f.kept).map((f) => f.id),
    };
    report.rounds.push(r);
    Object.assign(report, { kept: r.kept, score: r.score, lost: r.lost });
    o.onRound?.(r);
  }
  return report;
}

/** Whitespace runs as one space: a summary may wrap a long error message; that is not a loss. */
function normalize(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Everything the model reads in a request: texts, thinking and tool-call arguments. */
function requestText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    for (const c of m.content) parts.push(c.type === 'text' ? c.text : c.type === 'thinking' ? c.thinking : c.type === 'image' ? `[image ${c.mimeType}]` : c.type === 'toolCall' ? `${c.name} ${JSON.stringify(c.arguments)}` : '');
  }
  return parts.join('\n');
}

const assistant = (text: string, calls: ToolCall[] = []): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }, ...calls],
  stopReason: calls.length ? 'toolUse' : 'stop',
  usage: emptyUsage(),
});
const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({ type: 'toolCall', id, name, arguments: args });
const result = (id: string, name: string, text: string, details: Record<string, unknown>): Message => ({ role: 'toolResult', toolCallId: id, toolName: name, content: [{ type: 'text', text }], isError: false, details });

/** The opening of a realistic task, carrying every fact; returns the entries it appended. */
function plantFacts(store: SessionStore) {
  const [read, modified, decision, error, constraint] = PLANTED_FACTS.map((f) => f.needle);
  const plan = `# Ledger migration\n\n1. Add the ${decision} table.\n2. Backfill it from the nightly run.\n3. Switch reconcile() to read from it.\n`;
  return [
    store.appendMessage(
      userMessage(
        `The nightly ledger reconciliation fails since the currency rounding change. Find out why and plan a fix. One rule: do not modify anything under ${constraint}; it is generated from the provider's API spec and regenerated on every release.`,
      ),
    ),
    store.appendMessage(assistant('I will start with the reconciliation job.', [call('probe_read', 'read_file', { path: read })])),
    store.appendMessage(
      result(
        'probe_read',
        'read_file',
        `export async function reconcile(day: Date): Promise<void> {\n  const rows = await ledger.rowsFor(day);\n  for (const row of rows) row.balance = round(row.balance, 2);\n  await ledger.save(rows);\n}\n`,
        { path: read },
      ),
    ),
    store.appendMessage(assistant(`${read} rounds each row and saves it in place. What does the failing run print?`)),
    store.appendMessage(userMessage(`This, from last night's run:\n\n${error}\n\nIt is the only account that fails.`)),
    store.appendMessage(
      assistant(`Rounding in place loses the difference for good. Decision: keep the reconciled balances in a new table, ${decision}, instead of patching the ledger rows, so that a bad run can be rolled back. I will write the plan down.`, [
        call('probe_write', 'write_note', { path: modified, text: plan }),
      ]),
    ),
    store.appendMessage(result('probe_write', 'write_note', `Wrote ${Buffer.byteLength(plan)} bytes to ${modified}.`, { path: modified, mode: 'overwrite', bytes: Buffer.byteLength(plan), created: true })),
    store.appendMessage(assistant(`The plan is in ${modified}. Next I will go through the reports that read the ledger.`)),
  ];
}

/** Unremarkable turns (a report read, a one-line finding) that push the facts out of the kept part. */
class Filler {
  private n = 0;
  private readonly lines: number;

  constructor(keepRecentTokens: number) {
    // About a sixth of the kept part per turn (a line is some 25 tokens): several turns per round, never a huge one.
    this.lines = Math.max(2, Math.min(60, Math.round(keepRecentTokens / 6 / 25)));
  }

  /** Appends whole turns until they hold at least `tokens`. */
  add(store: SessionStore, tokens: number): void {
    let added = 0;
    while (added < tokens) {
      const i = ++this.n;
      const path = `src/reports/report-${i}.ts`;
      const code = Array.from({ length: this.lines }, (_, k) => `export const column${k} = format(row.c${k}, { digits: ${k % 4}, locale: 'en-GB' });`).join('\n');
      const turn: Message[] = [
        userMessage(`Next, check ${path}: does it still use the old date helpers?`),
        assistant('Reading it.', [call(`filler_${i}`, 'read_file', { path })]),
        result(`filler_${i}`, 'read_file', code, { path }),
        assistant(`${path} formats ${this.lines} columns with format(); it does not use the old date helpers, so nothing changes there.`),
      ];
      for (const m of turn) {
        store.appendMessage(m);
        added += estimateMessageTokens(m);
      }
    }
  }
}
