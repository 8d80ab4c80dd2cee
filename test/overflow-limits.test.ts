// The limits real overflow errors state, read into the ModelError (classifyError, as both adapters
// call it), and the tolerant match of summary headings. Each message below is quoted from a public
// report of it; the source is on its row.
import { describe, expect, it } from 'vitest';
import { classifyError } from '../src/model/errors.js';
import { overflowLimits } from '../src/model/overflow-limits.js';
import { missingSections, SUMMARY_SECTIONS, summaryProblem } from '../src/session/summary-prompts.js';

/**
 * An SDK APIError as both SDKs throw it: the status, the provider's error in `error`, and a message
 * of the status and that error (the OpenAI SDK JSON-encodes an error that is a bare string).
 */
function apiError(status: number, body: unknown): Error {
  const text = typeof body === 'string' ? JSON.stringify(body) : 'status code';
  return Object.assign(new Error(`${status} ${text}`), { status, error: body });
}

interface Row {
  who: string;
  /** Where the message was seen. */
  source: string;
  status: number;
  body: unknown;
  contextWindow?: number;
  requestTokens?: number;
}

const ROWS: Row[] = [
  {
    who: 'OpenAI',
    source: 'issue 23 (a local server, OpenAI wording); rahul2002m/ChatPDF#6',
    status: 400,
    body: {
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9650 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
    contextWindow: 8192,
    requestTokens: 9650,
  },
  {
    who: 'OpenAI',
    source: 'webtimemachine/wtm2#579',
    status: 400,
    body: {
      error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.", type: 'invalid_request_error', code: 'context_length_exceeded' },
    },
    contextWindow: 128000,
    requestTokens: 204308,
  },
  {
    who: 'vLLM (older)',
    source: 'ruipeterpan/specreason#4 (vLLM serving_chat.py)',
    status: 400,
    body: {
      object: 'error',
      message: "This model's maximum context length is 8192 tokens. However, you requested 8203 tokens (7691 in the messages, 512 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
    contextWindow: 8192,
    requestTokens: 7691,
  },
  {
    who: 'vLLM (newer)',
    source: 'vllm-project/vllm#33425',
    status: 400,
    body: {
      error: {
        message: "This model's maximum context length is 2048 tokens. However, your request has 8 input tokens plus 2045 'max_tokens'. Please reduce one or the other. (parameter=input_tokens, max_tokens, value=(8, 2045))",
        type: 'BadRequestError',
        param: 'input_tokens, max_tokens',
        code: 400,
      },
    },
    contextWindow: 2048,
    requestTokens: 8,
  },
  {
    who: 'llama.cpp (fields beside the message)',
    source: 'oobabooga/textgen#7257; ggml-org/llama.cpp#15780',
    status: 400,
    body: { error: { code: 400, message: 'the request exceeds the available context size. try increasing the context size or enable context shift', type: 'exceed_context_size_error', n_prompt_tokens: 14429, n_ctx: 8192 } },
    contextWindow: 8192,
    requestTokens: 14429,
  },
  {
    who: 'llama.cpp (numbers in the message)',
    source: 'ggml-org/llama.cpp#19774',
    status: 400,
    body: { error: { code: 400, message: 'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it', type: 'exceed_context_size_error' } },
    contextWindow: 4096,
    requestTokens: 4390,
  },
  {
    who: 'llama.cpp (status 500, older builds)',
    source: 'ggml-org/llama.cpp#15780',
    status: 500,
    body: { error: { code: 500, message: 'the request exceeds the available context size. try increasing the context size or enable context shift', type: 'exceed_context_size_error', n_prompt_tokens: 1407, n_ctx: 256 } },
    contextWindow: 256,
    requestTokens: 1407,
  },
  {
    who: 'Ollama (no numbers)',
    source: 'nano-step/nano-brain#208',
    status: 400,
    // The OpenAI SDK hands over the body's `error`, here a bare string.
    body: 'the input length exceeds the context length',
  },
  {
    who: 'Anthropic',
    source: 'anthropics/claude-code#12186',
    status: 400,
    body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' } },
    contextWindow: 200000,
    requestTokens: 208310,
  },
  {
    who: 'Anthropic (a smaller limit)',
    source: 'anthropics/claude-code#14195',
    status: 400,
    body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 191989 tokens > 180000 maximum' } },
    contextWindow: 180000,
    requestTokens: 191989,
  },
  {
    who: 'OpenRouter',
    source: 'OpenHands/OpenHands#9937',
    status: 400,
    body: {
      error: {
        message:
          'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 138956 tokens (7884 of text input, 131072 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
        code: 400,
      },
    },
    contextWindow: 131072,
    requestTokens: 7884,
  },
  {
    who: 'OpenRouter (upstream wording)',
    source: 'OpenRouterTeam/openrouter-examples#10',
    status: 400,
    body: {
      error: {
        message: "This model's maximum context length is 8192 tokens, however you requested 8977 tokens (8977 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    },
    contextWindow: 8192,
    requestTokens: 8977,
  },
];

describe('overflow errors: the kind and the limits they state', () => {
  it('the table: each real message is an overflow, with the window and request size it states', () => {
    for (const row of ROWS) {
      const e = classifyError(apiError(row.status, row.body), { provider: 'p' });
      const label = `${row.who} (${row.source})`;
      expect(e.kind, label).toBe('context_overflow');
      expect(e.retryable, label).toBe(false);
      expect(e.contextWindow, label).toBe(row.contextWindow);
      expect(e.requestTokens, label).toBe(row.requestTokens);
    }
  });

  it('a stream error frame (OpenRouter puts the status in code) carries the limits too; other errors carry none', () => {
    const e = classifyError(Object.assign(new Error('x'), { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9650 tokens.", code: 400 } }), { provider: 'p' });
    expect(e).toMatchObject({ kind: 'context_overflow', status: 400, contextWindow: 8192, requestTokens: 9650 });
    expect(classifyError(apiError(400, { error: { message: 'max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens', type: 'invalid_request_error' } }), { provider: 'p' })).not.toHaveProperty('contextWindow');
    expect(classifyError(apiError(429, { error: { message: 'Rate limit reached for 8192 tokens' } }), { provider: 'p' })).not.toHaveProperty('contextWindow');
    expect(overflowLimits('the input length exceeds the context length')).toEqual({});
    expect(overflowLimits('maximum context length is 32,768 tokens')).toEqual({ contextWindow: 32768 });
    expect(overflowLimits('slot context: n_ctx = 4096, n_prompt_tokens = 5000')).toEqual({ contextWindow: 4096 });
  });
});

describe('summary headings, matched tolerantly', () => {
  const withHeadings = (titles: readonly string[], prefix = '## ') => titles.map((t) => `${prefix}${t}\nsomething`).join('\n\n');

  it.each([
    ['pi\'s wording, "&" for "and"', ['Goal', 'Constraints & Preferences', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context']],
    ['numbered', ['1. Goal', '2. Constraints and preferences', '3) Progress', '4. Key decisions', '5. Next steps', '6. Critical context']],
    ['punctuation and case', ['GOAL:', 'Constraints and Preferences.', 'Progress:', 'Key-decisions —', 'Next-steps!', 'critical context:']],
    ['bold titles instead of Markdown headings', ['**Goal**', '**Constraints & preferences**', '**Progress:**', '**Key decisions**', '**Next steps**', '**Critical context**']],
  ])('%s', (_label, titles) => {
    const text = titles[0].startsWith('**') ? titles.map((t) => `${t}\nsomething`).join('\n\n') : withHeadings(titles);
    expect(missingSections(text, SUMMARY_SECTIONS)).toEqual([]);
    expect(summaryProblem(text)).toBeUndefined();
  });

  it('a property: any mix of case, "&"/"and", numbering, heading level and trailing punctuation still matches', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let trial = 0; trial < 200; trial++) {
      const titles = SUMMARY_SECTIONS.map((s, i) => {
        let t = rnd(2) ? s.replace(/ and /g, rnd(2) ? ' & ' : ' AND ') : s;
        t = [t, t.toUpperCase(), t.toLowerCase(), t.replace(/\b\w/g, (c) => c.toUpperCase())][rnd(4)];
        if (rnd(2)) t = `${i + 1}${rnd(2) ? '.' : ')'} ${t}`;
        if (rnd(2)) t += [':', '.', ' :', ''][rnd(4)];
        return `${'#'.repeat(1 + rnd(4))} ${t}`;
      });
      expect(missingSections(titles.map((t) => `${t}\nbody`).join('\n\n')), titles.join(' | ')).toEqual([]);
    }
  });

  it('"Constraints & Preferences" is "Constraints and preferences"; words in running text are not headings; a missing section is still named', () => {
    expect(missingSections('## Constraints & Preferences\nnone', ['Constraints and preferences'])).toEqual([]);
    const text = withHeadings(['Goal', 'Progress', 'Key decisions', 'Next steps', 'Critical context']) + '\nThe constraints and preferences are unknown.';
    expect(missingSections(text)).toEqual(['Constraints and preferences']);
    expect(missingSections('Goal is to ship it.\n## Progress\nx', ['Goal', 'Progress'])).toEqual(['Goal']);
  });
});
