// The first start: the interactive mode was asked to start with a provider that has no key. Instead
// of exiting, it prints (into the scrollback, wrapped at the width) what it found (the providers
// whose keys are set, whether Ollama runs here and its models) and how to set a key or write the
// config file, then shows a list in the live region: arrows and Enter, or a model's number. The
// choice is saved to the user config (app/first-start.ts) and the session starts with it.
import stringWidth from 'string-width';
import type { AgentFlags } from '../app/flags.js';
import { resolveFor } from '../app/agent-start.js';
import { agentContext } from '../app/agent-context.js';
import { firstStartChoices, keyedProviders, keyVariables, missingKey, ollamaUrl, probeOllama, saveModelChoice, userConfigFile, type ModelChoice, type OllamaProbe } from '../app/first-start.js';
import { prepareNodeFetch } from '../core/node-fetch.js';
import { PROVIDERS } from '../model/models.js';
import { KeyParser, type Key } from './keys.js';
import { Screen } from './screen.js';
import { Terminal } from './terminal.js';
import { paint, type Paint } from './view.js';

/** Words wrapped at `width` cells; continuation lines get `indent`; a word longer than a line (a path) is split where the line ends. */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const out: string[] = [];
  const lead = /^ */.exec(text)![0];
  let line = lead;
  const empty = () => line.trim() === '';
  for (let word of text.slice(lead.length).split(/ +/)) {
    if (!empty() && stringWidth(`${line} ${word}`) > width) {
      out.push(line);
      line = indent;
    }
    // Too long for any line: fill this one, carry on with the rest.
    while (stringWidth(line) + (empty() ? 0 : 1) + stringWidth(word) > width && width - stringWidth(line) - (empty() ? 0 : 1) > 0) {
      const room = width - stringWidth(line) - (empty() ? 0 : 1);
      let head = '';
      for (const ch of word) {
        if (stringWidth(head + ch) > room) break;
        head += ch;
      }
      out.push(empty() ? line + head : `${line} ${head}`);
      word = word.slice(head.length);
      line = indent;
    }
    line = empty() ? line + word : `${line} ${word}`;
  }
  out.push(line);
  return out;
}

/** The text of the first screen: paragraphs, each a list of lines (a line after the first is a command or an example, shown indented). */
export function firstStartText(facts: { provider: string; keyed: ReadonlyArray<{ provider: string; envVar: string }>; ollama: OllamaProbe; configFile: string }): string[][] {
  const { provider, keyed, ollama, configFile } = facts;
  const env = PROVIDERS[provider]?.apiKeyEnv;
  const out: string[][] = [[`Welcome to mini-agent. ${provider} needs an API key${env ? ` (${env})` : ''}, and none is set.`]];
  out.push([keyed.length > 0 ? `Keys set: ${keyed.map((k) => `${k.envVar} (${k.provider})`).join(', ')}.` : `No provider key is set (${keyVariables().join(', ')}).`]);
  if (ollama.running) {
    out.push(
      ollama.models.length > 0 ? [`Ollama runs at ${ollama.url} with ${ollama.models.length} model${ollama.models.length === 1 ? '' : 's'}.`] : [`Ollama runs at ${ollama.url} but has no models yet; pull one:`, 'ollama pull qwen3:8b'],
    );
  } else {
    out.push([`Ollama is not running at ${ollama.url} (${ollama.reason}). It needs no key: install it from ollama.com, then:`, 'ollama pull qwen3:8b']);
  }
  out.push(['To use a hosted model, set its key and start again:', `export ${env ?? 'ANTHROPIC_API_KEY'}=...`]);
  out.push(['Or write the config file (keep it mode 0600):', configFile, `{"provider": "anthropic", "model": "${PROVIDERS.anthropic.defaultModel}", "apiKey": "..."}`]);
  return out;
}

/** The paragraphs wrapped at `width`: first lines flush left, commands and examples indented by two. */
export function firstStartLines(paragraphs: readonly string[][], width: number): string[] {
  return paragraphs.flatMap(([head, ...rest]) => [...wrapText(head, width, '  '), ...rest.flatMap((l) => wrapText(`  ${l}`, width, '    '))]);
}

/** The live list: a title, the numbered choices with the selected one marked, and the keys. A list taller than `maxRows` shows a window around the selection. */
export function choiceLines(choices: readonly ModelChoice[], selected: number, width: number, p: Paint, maxRows = Infinity): string[] {
  if (choices.length === 0) return wrapText('Nothing to pick yet. Enter: look for Ollama again · Ctrl+C: quit', width, '  ').map((l) => p.dim(l));
  const lines = wrapText('Pick a model (↑↓ and Enter, or its number; Ctrl+C quits):', width, '  ');
  const room = Math.max(1, maxRows - lines.length - 1); // one row for the "more" note
  const fits = choices.length <= maxRows - lines.length;
  const count = fits ? choices.length : room;
  const first = fits ? 0 : Math.min(Math.max(0, selected - Math.floor(count / 2)), choices.length - count);
  for (let i = first; i < first + count; i++) {
    const text = `${i + 1}. ${choices[i].provider}/${choices[i].model}`;
    lines.push(...wrapText(i === selected ? `› ${text}` : `  ${text}`, width, '     ').map((l) => (i === selected ? p.cyan(l) : l)));
  }
  if (!fits) lines.push(p.dim(`  (${first + 1}–${first + count} of ${choices.length})`));
  return lines;
}

type Outcome = { choice: ModelChoice; file: string } | { exit: number };

/**
 * Runs the first screen when the configured provider has no key (and no --script): returns the
 * flags to start with (the choice made), an exit code (the user left), or undefined (not needed:
 * start as usual; a config that cannot even be read is reported by createAgent as before).
 */
export async function firstStartIfNeeded(flags: AgentFlags, env: NodeJS.ProcessEnv, color: boolean): Promise<{ flags: AgentFlags } | { exit: number } | undefined> {
  if (flags.script) return undefined;
  let provider: string;
  try {
    const resolved = resolveFor({ ...flags }, agentContext({ env }));
    if (!missingKey(resolved.config)) return undefined;
    provider = resolved.config.provider;
  } catch {
    return undefined;
  }
  let url: string;
  try {
    url = ollamaUrl(env);
  } catch (err) {
    process.stderr.write(`mini-agent: ${(err as Error).message}\n`);
    return { exit: 2 };
  }
  prepareNodeFetch();
  const outcome = await runFirstScreen(provider, url, env, color);
  if ('exit' in outcome) return outcome;
  // The choice wins over a --provider/--model that led here; the saved config gives its base URL.
  return { flags: { ...flags, provider: outcome.choice.provider, model: outcome.choice.model, ...(outcome.choice.baseUrl ? { baseUrl: outcome.choice.baseUrl } : {}) } };
}

function runFirstScreen(provider: string, url: string, env: NodeJS.ProcessEnv, color: boolean): Promise<Outcome> {
  const p = paint(color);
  const terminal = new Terminal({ input: process.stdin, output: process.stdout });
  const screen = new Screen(terminal);
  const configFile = userConfigFile(env);
  let choices: ModelChoice[] = [];
  let selected = 0;
  let probing = true;
  let done = false;
  const draw = () => screen.setLive(() => ({ lines: probing ? [p.dim(`Looking for Ollama at ${url}…`)] : choiceLines(choices, selected, screen.width, p, screen.liveRows) }));
  /** The first time: everything; again (Enter on an empty list): only what Ollama says now. */
  const probe = async (again: boolean) => {
    probing = true;
    draw();
    const ollama = await probeOllama(url, fetch);
    if (done) return; // left while it was probing
    const keyed = keyedProviders(env);
    choices = firstStartChoices(keyed, ollama);
    selected = 0;
    probing = false;
    const text = firstStartText({ provider, keyed, ollama, configFile });
    screen.print([...(again ? [] : ['']), ...firstStartLines(again ? [text[2]] : text, screen.width), '']);
    draw();
  };
  return new Promise<Outcome>((resolve) => {
    let offSignals = () => {};
    const finish = (outcome: Outcome, lines: string[]) => {
      if (done) return;
      done = true;
      offSignals();
      if (escTimer) clearTimeout(escTimer);
      screen.close(lines);
      terminal.restore();
      resolve(outcome);
    };
    const pick = (i: number) => {
      const choice = choices[i];
      try {
        const file = saveModelChoice(env, choice);
        finish({ choice, file }, wrapText(`Saved ${choice.provider}/${choice.model} to ${file} (mode 0600).`, screen.width, '  '));
      } catch (err) {
        finish({ exit: 2 }, wrapText(`mini-agent: ${(err as Error).message}`, screen.width, '  '));
      }
    };
    const onKey = (key: Key) => {
      if ((key.name === 'c' || key.name === 'd') && key.ctrl) return finish({ exit: 0 }, [p.dim('Nothing saved.')]);
      if (probing) return;
      if (choices.length === 0) {
        if (key.name === 'enter') void probe(true);
        return;
      }
      if (key.name === 'up') selected = (selected + choices.length - 1) % choices.length;
      else if (key.name === 'down') selected = (selected + 1) % choices.length;
      else if (key.name === 'enter') return pick(selected);
      else if (key.name === 'text' && /^[1-9]$/.test(key.text) && Number(key.text) <= choices.length) return pick(Number(key.text) - 1);
      draw();
    };
    const parser = new KeyParser();
    let escTimer: NodeJS.Timeout | undefined;
    terminal.start(
      (chunk) => {
        if (escTimer) clearTimeout(escTimer);
        for (const key of parser.feed(chunk)) onKey(key);
        if (parser.hasPending) escTimer = setTimeout(() => parser.flush().forEach(onKey), 40);
      },
      () => draw(),
    );
    const onSignal = (signal: NodeJS.Signals) => finish({ exit: signal === 'SIGTERM' ? 143 : 129 }, []);
    process.once('SIGTERM', onSignal);
    process.once('SIGHUP', onSignal);
    offSignals = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
    };
    void probe(false);
  });
}
