// The memory eval for any front end (`mini-agent eval memory`): the configuration and the model
// resolved exactly as an agent resolves them (flags > environment > config files), then the
// memory probe run with that model as the summarizer, sized by its context window and the
// configured compaction thresholds.
import { compactionSettings, modelSummarizer } from '../agent/compactor.js';
import type { CompactionSettings } from '../session/compaction-plan.js';
import { resolveFor } from './agent-start.js';
import { agentContext } from './agent-context.js';
import type { AgentFlags } from './flags.js';
import { runMemoryProbe, type MemoryReport, type RoundReport } from './memory-probe.js';
import { createModel } from './model-factory.js';

export interface MemoryEvalOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The model flags (provider, model, base URL, key, script, record, context window); session flags do not apply. */
  flags: Pick<AgentFlags, 'provider' | 'model' | 'baseUrl' | 'apiKey' | 'script' | 'record' | 'contextWindow'>;
}

export interface MemoryEval {
  /** provider/model of the summarizer. */
  model: string;
  settings: CompactionSettings;
  /** Configuration problems worth a warning. */
  warnings: readonly string[];
  /** Runs the probe; a failed compaction ends it early (report.error), it never throws for one. */
  run(opts: { rounds: number; signal?: AbortSignal; onRound?: (round: RoundReport) => void }): Promise<MemoryReport>;
}

/** Resolves the configuration and the model (throws UsageError when they are wrong); nothing is sent yet. */
export async function prepareMemoryEval(o: MemoryEvalOptions): Promise<MemoryEval> {
  const resolved = resolveFor({ ...o.flags }, agentContext({ cwd: o.cwd, env: o.env }));
  const model = await createModel({ script: o.flags.script, record: o.flags.record, cwd: o.cwd }, resolved);
  const c = resolved.config;
  const settings = compactionSettings(c.contextWindow, c.compaction);
  const name = `${model.provider}/${model.model}`;
  return {
    model: name,
    settings,
    warnings: resolved.warnings ?? [],
    run: (r) => runMemoryProbe({ summarize: modelSummarizer(model), settings, model: name, ...r }),
  };
}
