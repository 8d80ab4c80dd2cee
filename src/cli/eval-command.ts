// `mini-agent eval memory`: a thin user of the app layer's memory eval. It prints each round as
// it ends (a real model takes a while), then the retention score and the facts that were lost;
// with --json, one JSON object instead. Exit 0 when the probe ran, whatever the score; 1 when a
// compaction failed (the model's request failed, or its summary was unusable).
import type { AgentFlags } from '../app/flags.js';
import { prepareMemoryEval } from '../app/memory-eval.js';
import { PLANTED_FACTS, type FactId, type MemoryReport, type RoundReport } from '../app/memory-probe.js';
import { EXIT } from '../app/exit-codes.js';
import type { FrontEndIo } from '../app/front-end-io.js';

export async function evalCommand(args: { suite: 'memory'; agent: AgentFlags; rounds: number; json: boolean }, io: FrontEndIo): Promise<number> {
  const out = (line: string) => io.stdout.write(line + '\n');
  const probe = await prepareMemoryEval({ cwd: io.cwd, env: io.env, flags: args.agent });
  for (const w of probe.warnings) io.stderr.write(`mini-agent: warning: ${w}\n`);
  const { contextWindow, keepRecentTokens } = probe.settings;
  if (!args.json) {
    out(`memory eval: ${PLANTED_FACTS.length} facts planted, ${args.rounds} round${args.rounds === 1 ? '' : 's'} of compaction; summarizer ${probe.model}, window ${contextWindow} tokens, keeping ${keepRecentTokens}`);
  }
  const report = await probe.run({ rounds: args.rounds, onRound: args.json ? undefined : (r) => out(roundLine(r)) });
  if (args.json) out(JSON.stringify({ eval: 'memory', model: probe.model, contextWindow, keepRecentTokens, ...report }));
  else out(scoreLines(report, args.rounds).join('\n'));
  if (report.error) {
    io.stderr.write(`mini-agent: the memory eval stopped in round ${report.error.round}: the compaction failed: ${report.error.message}\n`);
    return EXIT.error;
  }
  return EXIT.completed;
}

const percent = (score: number) => `${Math.round(score * 100)}%`;
const factLine = (id: FactId) => {
  const f = PLANTED_FACTS.find((x) => x.id === id)!;
  return `${id} (${f.description}): ${f.needle}`;
};

function roundLine(r: RoundReport): string {
  const lost = r.lost.length ? `; lost: ${r.lost.join(', ')}` : '';
  // A fact still in the kept messages was not tested: the window is too large for the probe's filler.
  const untested = r.factsCompacted ? '' : ' (some facts were not compacted yet)';
  return `round ${r.round}: ${r.kept}/${r.planted} kept (${percent(r.score)}), ${r.summarizedEntries} entries summarized, ${r.tokensBefore} → ${r.tokensAfter} tokens${lost}${untested}`;
}

function scoreLines(report: MemoryReport, planned: number): string[] {
  if (report.score === null) return ['retention: no round completed'];
  const lines = [`retention: ${report.kept}/${report.planted} facts kept (${percent(report.score)}) after ${report.rounds.length} round${report.rounds.length === 1 ? '' : 's'}${report.error ? ` of ${planned} (stopped early)` : ''}`];
  // Every fact lost in any round, with the round it was first lost in.
  const firstLost = new Map<FactId, number>();
  for (const r of report.rounds) for (const id of r.lost) if (!firstLost.has(id)) firstLost.set(id, r.round);
  for (const [id, round] of firstLost) lines.push(`  lost in round ${round}${report.lost.includes(id) ? '' : ' (kept again later)'}: ${factLine(id)}`);
  return lines;
}
