// Plan mode: one chat call that answers what would be done (steps, the files it would touch);
// nothing changes. The model is asked for a JSON object; an answer that is not one still
// gives a plan (its text as the summary, its list items as the steps).
import type { ChatMessage, ChatProvider, ChatResult } from '../completion/chat.ts';
import type { WalkedFile } from '../agents/scope/walk.ts';
import { trimText } from '../agents/types.ts';
import type { ComposerPlan } from './types.ts';

const LISTED_FILES = 200;
const SHOWN_CHARS = 24_000;
const PLAN_MAX_TOKENS = 2048;

/** The conversation of a plan: what to plan, the files in scope and, when small, their content. */
export function planMessages(prompt: string, globs: readonly string[], files: readonly WalkedFile[], read: (path: string) => string | null) {
  const listed = files.slice(0, LISTED_FILES).map((file) => `- ${file.path} (${file.size} bytes)`);
  if (files.length > LISTED_FILES) listed.push(`- … and ${files.length - LISTED_FILES} more`);
  const shown: string[] = [];
  let budget = SHOWN_CHARS;
  for (const file of files) {
    if (file.size > budget) continue;
    const text = read(file.path);
    if (text === null) continue;
    budget -= text.length;
    shown.push(`--- ${file.path}\n${text}`);
  }
  return [
    {
      role: 'system' as const,
      content: [
        'You plan changes to a software project; you do not make them.',
        'Answer with one JSON object and nothing else: {"summary": "one paragraph", "steps": ["step 1", "step 2"], "files": ["path/of/a/file/to/change"]}.',
        `The files that may change match: ${globs.join(', ')}.`,
      ].join('\n'),
    },
    {
      role: 'user' as const,
      content: [`Task: ${prompt}`, '', 'Files in scope:', ...listed, ...(shown.length ? ['', 'Their content:', ...shown] : [])].join('\n'),
    },
  ];
}

/**
 * Asks the model for a plan.
 *
 * @example
 * const { plan, result } = await askForPlan(provider, messages, signal);
 */
export async function askForPlan(
  provider: ChatProvider,
  messages: ChatMessage[],
  maxTokens: number,
  signal: AbortSignal,
): Promise<{ plan: ComposerPlan; result: ChatResult }> {
  const result = await provider.chat({ messages, maxTokens: Math.max(1, Math.min(PLAN_MAX_TOKENS, maxTokens)), signal });
  return { plan: readPlan(result.text), result };
}

/**
 * What a plan holds at most, whatever the model sends (a server may ignore max_tokens and send
 * megabytes): the plan is stored, answered and sent as one event, which Loom's own client reads
 * up to 16 MiB.
 */
const PLAN_LIMITS = { summaryChars: 4000, steps: 200, stepChars: 1000, files: 200, fileChars: 1024 };

/** The plan in a model's answer: its JSON object when it wrote one, else its text and list items. */
export function readPlan(text: string): ComposerPlan {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start !== -1 && end > start) {
    try {
      const parsed = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>;
      const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
      if (typeof parsed === 'object' && parsed !== null && (Array.isArray(parsed.steps) || typeof parsed.summary === 'string')) {
        return bounded({ summary: typeof parsed.summary === 'string' ? parsed.summary : '', steps: strings(parsed.steps), files: strings(parsed.files) });
      }
    } catch {
      // not JSON after all: read it as text
    }
  }
  const steps = text
    .split('\n')
    .map((line) => /^\s*(?:[-*]|\d+[.)])\s+(.*)$/.exec(line)?.[1]?.trim())
    .filter((step): step is string => Boolean(step));
  return bounded({ summary: text.trim(), steps, files: [] });
}

/** A plan within PLAN_LIMITS: long texts cut saying so, a file path too long for one left out. */
function bounded(plan: ComposerPlan): ComposerPlan {
  return {
    summary: trimText(plan.summary, PLAN_LIMITS.summaryChars),
    steps: plan.steps.slice(0, PLAN_LIMITS.steps).map((step) => trimText(step, PLAN_LIMITS.stepChars)),
    files: plan.files.filter((file) => file.length <= PLAN_LIMITS.fileChars).slice(0, PLAN_LIMITS.files),
  };
}
