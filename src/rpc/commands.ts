// What each RPC command does: one entry per command, typed by the protocol's schemas (a handler
// that returned the wrong shape would not compile). Handlers only call the application layer;
// an error they throw becomes an error response with the error's kind.
import { statSync } from 'node:fs';
import { compileValidator, type SchemaValidator } from '../tools/schema-validator.js';
import { AgentError } from '../app/errors.js';
import type { Agent, AgentSessionHandle } from '../app/types.js';
import { EVENT_SCHEMA_VERSION } from '../core/events.js';
import { givenImages } from '../app/prompt-images.js';
import { parseRule } from '../tools/permissions.js';
import type { PermissionBroker } from './permission-broker.js';
import { commandSchema, COMMANDS, RPC_PROTOCOL_VERSION, type CommandParams, type CommandResult, type CommandType } from './protocol.js';

/** What handlers share besides the agent: the permission requests waiting for the client. */
export interface RpcContext {
  permissions: PermissionBroker;
}

type Handler<K extends CommandType> = (agent: Agent, params: CommandParams<K>, rpc: RpcContext) => CommandResult<K> | Promise<CommandResult<K>>;

const info = (s: AgentSessionHandle) => ({ id: s.id, file: s.file, name: s.name });

export const HANDLERS: { [K in CommandType]: Handler<K> } = {
  prompt: async (agent, p) => {
    if (agent.running) throw new AgentError('busy', 'a run is in progress: send steer or follow_up, or abort it first');
    // Bad images are an error answer, not a run that never starts; checked (and scaled) before the run.
    const images = p.images ? await givenImages(p.images, agent.cwd) : [];
    if (agent.running) throw new AgentError('busy', 'a run is in progress: send steer or follow_up, or abort it first');
    void agent.prompt(p.message, images.length > 0 ? { images } : {}).catch(() => undefined); // the outcome arrives as run_settled
    return { started: true };
  },
  // A steer or follow-up carries images as a prompt does (and the `@path` files its text names): a bad image is an error answer, nothing is queued.
  steer: async (agent, p) => {
    const images = p.images ? await givenImages(p.images, agent.cwd) : [];
    const started = !agent.running;
    return { item: agent.steer(p.message, images.length > 0 ? { images } : {}), started };
  },
  follow_up: async (agent, p) => {
    const images = p.images ? await givenImages(p.images, agent.cwd) : [];
    const started = !agent.running;
    return { item: agent.followUp(p.message, images.length > 0 ? { images } : {}), started };
  },
  cancel: (agent, p) => ({ cancelled: agent.cancel(p.item) }),
  abort: (agent) => {
    const aborted = agent.running;
    return { aborted, undelivered: agent.abort() };
  },
  get_state: (agent) => ({ protocolVersion: RPC_PROTOCOL_VERSION, eventSchemaVersion: EVENT_SCHEMA_VERSION, ...agent.state() }),
  get_messages: (agent) => ({ messages: agent.messages() }),
  get_tree: (agent) => agent.session.tree(),
  get_stats: (agent) => agent.session.stats(),
  new_session: (agent) => ({ session: info(agent.newSession()) }),
  switch_session: (agent, p) => ({ session: info(agent.switchSession({ resume: p.session })) }),
  branch: (agent, p) => ({ entryId: agent.session.branch(p.entry) }),
  fork: (agent, p) => ({ session: info(agent.session.fork(p.entry)) }),
  label: (agent, p) => ({ entryId: agent.session.label(p.entry, p.label) }),
  diff: async (agent, p) => ({ diff: await agent.session.diff(p.entry) }),
  rewind: async (agent, p) => {
    const { entry, ...opts } = p;
    const out = await agent.session.rewind(entry, opts);
    return { entryId: out.entryId, restored: opts.dryRun ? out.plan.restore.map((c) => c.path) : out.restored, changedOutside: out.plan.changedOutside, notKept: out.plan.notKept, moved: out.moved };
  },
  name: (agent, p) => {
    agent.session.setName(p.name);
    return { session: info(agent.session) };
  },
  set_model: async (agent, p) => ({ model: await agent.setModel(p) }),
  set_thinking: (agent, p) => agent.setThinking(p.level),
  compact: async (agent, p) => {
    const r = await agent.compact({ focus: p.focus });
    if (!r.ok) throw new AgentError('compaction_failed', `compaction failed: ${r.error}; nothing was summarized`);
    const { ok: _ok, ...result } = r;
    return result;
  },
  permission_response: (_agent, p, rpc) => {
    if (p.rule !== undefined) {
      if (p.decision !== 'always') throw new AgentError('invalid_argument', 'rule goes with decision "always"');
      parseRule(p.rule, 'permission_response'); // a malformed rule is an invalid_argument error, before anything is granted
    }
    const known = rpc.permissions.answer(p.requestId, { decision: p.decision, ...(p.rule ? { rule: p.rule } : {}), ...(p.reason ? { reason: p.reason } : {}) });
    if (!known) {
      const waiting = rpc.permissions.waiting();
      throw new AgentError('not_found', `no permission request ${JSON.stringify(p.requestId)} is waiting${waiting.length ? ` (waiting: ${waiting.join(', ')})` : ''}; it was answered already, withdrawn by an abort, or never sent`);
    }
    return { answered: true };
  },
  export: async (agent, p) => {
    const path = await agent.session.export(p.format, p.path);
    return { path, bytes: statSync(path).size };
  },
};

const validators = new Map<CommandType, SchemaValidator>();

export function isCommandType(type: unknown): type is CommandType {
  return typeof type === 'string' && Object.hasOwn(COMMANDS, type);
}

/** Why a command's fields are wrong, in one line; undefined when they are right. */
export function commandProblem(type: CommandType, value: unknown): string | undefined {
  let v = validators.get(type);
  if (!v) {
    v = compileValidator(commandSchema(type));
    validators.set(type, v);
  }
  if (v.check(value)) return undefined;
  const problems = new Set<string>();
  for (const e of v.errors(value)) {
    if (e.keyword === 'boolean') continue;
    const extra = e.keyword === 'additionalProperties' ? ` (${[(e.params as { additionalProperties?: string[] })?.additionalProperties ?? []].flat().join(', ')})` : '';
    problems.add(`${e.instancePath === '' ? type : e.instancePath.slice(1).replaceAll('/', '.')}: ${e.message}${extra}`);
    if (problems.size >= 5) break;
  }
  return [...problems].join('; ') || `${type}: the fields do not match the command`;
}
