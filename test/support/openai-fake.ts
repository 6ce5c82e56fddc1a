// A small fake of an OpenAI-compatible server (node:http on 127.0.0.1:0) for the openai
// provider's tests: no real one runs on the build machines. It answers `POST /v1/completions`
// (FIM through `suffix`, or refusing it like a chat-only server) and `POST /v1/chat/completions`,
// streaming SSE chunks (optionally slowly) or one JSON body, and can fail on demand. It records
// every request and notices when a client hangs up before a stream ended.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAiBehaviour {
  /** Accept `suffix` on /completions (default true); otherwise refuse it with `fimRefusal`. */
  fim: boolean;
  /** How a chat-only server refuses FIM. Default 400 "suffix is not currently supported" (vLLM's words). */
  fimRefusal: { status: number; message: string };
  /** Text streamed for FIM requests. */
  fimText: string;
  /** Text streamed for chat requests. */
  chatText: string;
  /** Characters per SSE chunk. */
  chunkChars: number;
  /** Pause before each chunk (a slow model). */
  chunkDelayMs: number;
  /** Stream SSE when asked to (default true); false answers one JSON body like a server that cannot stream. */
  stream: boolean;
  /** Include `usage.completion_tokens` in the last chunk (or the JSON body). */
  usageTokens?: number;
  /** Answer every request with this status and body instead. */
  fail?: { status: number; body: string; contentType?: string };
  /** Send this raw text as the SSE stream instead of real chunks (unreadable streams). */
  rawStream?: string;
  /** 401 unless `Authorization: Bearer <requireKey>`. */
  requireKey?: string;
}

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface FakeOpenAi {
  /** The base URL, ending in /v1. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Streams whose client hung up before the last chunk was sent. */
  cutStreams: number;
  /** Resolves when the next stream is cut by its client. */
  nextCut(): Promise<void>;
  set(changes: Partial<FakeOpenAiBehaviour>): void;
  close(): Promise<void>;
}

const DEFAULTS: FakeOpenAiBehaviour = {
  fim: true,
  fimRefusal: { status: 400, message: 'suffix is not currently supported' },
  fimText: 'return a + b;\n}',
  chatText: 'return a + b;',
  chunkChars: 4,
  chunkDelayMs: 0,
  stream: true,
};

export async function startFakeOpenAi(initial: Partial<FakeOpenAiBehaviour> = {}): Promise<FakeOpenAi> {
  let behaviour: FakeOpenAiBehaviour = { ...DEFAULTS, ...initial };
  const requests: RecordedRequest[] = [];
  let cutWaiters: (() => void)[] = [];
  const fake = {
    cutStreams: 0,
  };

  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const url = req.url ?? '/';
    requests.push({ path: url, headers: req.headers, body });
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };

    if (behaviour.requireKey && req.headers.authorization !== `Bearer ${behaviour.requireKey}`) {
      return json(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } });
    }
    if (behaviour.fail) {
      res.writeHead(behaviour.fail.status, { 'content-type': behaviour.fail.contentType ?? 'application/json' });
      return res.end(behaviour.fail.body);
    }
    const chat = url === '/v1/chat/completions';
    if (req.method !== 'POST' || (!chat && url !== '/v1/completions')) return json(404, { error: { message: `no route ${req.method} ${url}` } });
    if (!chat && body?.suffix !== undefined && !behaviour.fim) {
      return json(behaviour.fimRefusal.status, { error: { message: behaviour.fimRefusal.message, type: 'invalid_request_error' } });
    }
    const answer = chat ? behaviour.chatText : behaviour.fimText;
    const shape = (piece: string, last: boolean) => ({
      id: 'cmpl-fake',
      object: chat ? 'chat.completion.chunk' : 'text_completion',
      model: body?.model,
      choices: [chat ? { index: 0, delta: { content: piece }, finish_reason: last ? 'stop' : null } : { index: 0, text: piece, finish_reason: last ? 'stop' : null }],
      ...(last && behaviour.usageTokens !== undefined ? { usage: { completion_tokens: behaviour.usageTokens } } : {}),
    });

    if (!behaviour.stream || body?.stream !== true) {
      return json(200, {
        id: 'cmpl-fake',
        model: body?.model,
        choices: [chat ? { index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' } : { index: 0, text: answer, finish_reason: 'stop' }],
        ...(behaviour.usageTokens !== undefined ? { usage: { completion_tokens: behaviour.usageTokens } } : {}),
      });
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (behaviour.rawStream !== undefined) return res.end(behaviour.rawStream);
    const pieces: string[] = [];
    for (let at = 0; at < answer.length; at += behaviour.chunkChars) pieces.push(answer.slice(at, at + behaviour.chunkChars));
    let finished = false;
    res.on('close', () => {
      if (finished) return;
      fake.cutStreams++;
      const waiters = cutWaiters;
      cutWaiters = [];
      for (const resolve of waiters) resolve();
    });
    for (const [i, piece] of pieces.entries()) {
      if (behaviour.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.chunkDelayMs));
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(shape(piece, i === pieces.length - 1))}\n\n`);
    }
    finished = true;
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get cutStreams() {
      return fake.cutStreams;
    },
    nextCut: () => new Promise<void>((resolve) => cutWaiters.push(resolve)),
    set(changes) {
      behaviour = { ...behaviour, ...changes };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
