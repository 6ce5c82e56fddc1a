// A small fake of an OpenAI-compatible server (node:http on 127.0.0.1:0) for the openai
// provider's tests: no real one runs on the build machines. It answers `POST /v1/completions`
// (FIM through `suffix`, or refusing it like a chat-only server) and `POST /v1/chat/completions`,
// streaming SSE chunks or one JSON body, and can fail on demand. A stream can be held open
// midway (a model still thinking) until the test releases it, so that tests of time limits and
// aborts know the server has not finished. It records every request and notices when a client
// hangs up before a stream ended.
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
  /**
   * Send this many chunks of a stream, then hold it open, sending nothing more, until
   * `release()` or until the client hangs up (a model still thinking). 0 holds right after the
   * headers. Unset: streams run to the end.
   */
  holdAfterChunks?: number;
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
  /** Resolves when the next stream starts being held (see `holdAfterChunks`). */
  nextHold(): Promise<void>;
  /** Lets every held stream go on to its end. */
  release(): void;
  set(changes: Partial<FakeOpenAiBehaviour>): void;
  /** Scripted chat answers for agents' conversations (see ChatScript). */
  chat: ChatScript;
  close(): Promise<void>;
}

const DEFAULTS: FakeOpenAiBehaviour = {
  fim: true,
  fimRefusal: { status: 400, message: 'suffix is not currently supported' },
  fimText: 'return a + b;\n}',
  chatText: 'return a + b;',
  chunkChars: 4,
  stream: true,
};

export async function startFakeOpenAi(initial: Partial<FakeOpenAiBehaviour> = {}): Promise<FakeOpenAi> {
  let behaviour: FakeOpenAiBehaviour = { ...DEFAULTS, ...initial };
  const requests: RecordedRequest[] = [];
  let cutWaiters: (() => void)[] = [];
  let holdWaiters: (() => void)[] = [];
  let held: (() => void)[] = [];
  const wake = (waiters: (() => void)[]) => {
    for (const resolve of waiters) resolve();
  };
  const release = () => {
    const streams = held;
    held = [];
    wake(streams);
  };
  /** Holds a stream until released or until its client goes away. */
  const hold = (res: http.ServerResponse) =>
    new Promise<void>((resolve) => {
      held.push(resolve);
      res.once('close', resolve);
      const waiters = holdWaiters;
      holdWaiters = [];
      wake(waiters);
    });
  const fake = {
    cutStreams: 0,
  };
  const script = new ChatScript();

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
    const holdAt = behaviour.holdAfterChunks;
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
    if (chat && script.answers(body)) return script.answer(body, res);
    if (!chat && body?.suffix !== undefined && !behaviour.fim) {
      return json(behaviour.fimRefusal.status, { error: { message: behaviour.fimRefusal.message, type: 'invalid_request_error' } });
    }
    const answer = chat ? behaviour.chatText : behaviour.fimText;
    const shape = (piece: string, last: boolean) => ({
      id: 'cmpl-fake',
      object: chat ? 'chat.completion.chunk' : 'text_completion',
      model: body?.model,
      choices: [
        chat ? { index: 0, delta: { content: piece }, finish_reason: last ? 'stop' : null } : { index: 0, text: piece, finish_reason: last ? 'stop' : null },
      ],
      ...(last && behaviour.usageTokens !== undefined ? { usage: { completion_tokens: behaviour.usageTokens } } : {}),
    });

    if (!behaviour.stream || body?.stream !== true) {
      return json(200, {
        id: 'cmpl-fake',
        model: body?.model,
        choices: [
          chat ? { index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' } : { index: 0, text: answer, finish_reason: 'stop' },
        ],
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
      wake(waiters);
    });
    for (const [i, piece] of pieces.entries()) {
      if (i === holdAt) await hold(res);
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
    chat: script,
    nextHold: () => new Promise<void>((resolve) => holdWaiters.push(resolve)),
    release,
    set(changes) {
      behaviour = { ...behaviour, ...changes };
    },
    async close() {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// ---- Scripted chat: agents' conversations ---------------------------------------------------
//
// A test queues the server's answers turn by turn and reads back what each request carried
// (`fake.requests`). Queued turns answer `POST /v1/chat/completions` in order; with none queued,
// the fixed `chatText` answers as before. A turn can be text, native tool calls (arguments
// streamed in pieces, malformed on purpose if the test wants), an error status, be held after
// its headers until the test releases it (to abort a request mid-answer, or move a clock), or a
// flood: an answer that runs on until its client hangs up (a hostile or broken server).

export interface ScriptedToolCall {
  /** Omitted: the server sends no id (some do not). */
  id?: string;
  name: string;
  /** The arguments text exactly as sent: malformed JSON is allowed. */
  arguments: string;
}

export type ScriptedTurn =
  | {
      kind: 'text';
      text: string;
      /** Reported in the answer (the last chunk when the client asked for `stream_options.include_usage`). */
      usage?: { prompt: number; completion: number };
      finishReason?: string;
      /** Characters per chunk (default 5). */
      chunkChars?: number;
      /** Answer one JSON body even when asked to stream. */
      json?: boolean;
      /** Send the headers and a first chunk without content, then wait for `release()`. */
      hold?: boolean;
    }
  | {
      kind: 'tools';
      calls: ScriptedToolCall[];
      /** Text before the calls. */
      text?: string;
      usage?: { prompt: number; completion: number };
      finishReason?: string;
      json?: boolean;
      /** Stream each call as a whole chunk without `index` (servers that do so). */
      noIndex?: boolean;
      /** Send the headers and a first chunk without content, then wait for `release()`. */
      hold?: boolean;
    }
  | { kind: 'error'; status: number; message: string }
  | {
      kind: 'flood';
      /**
       * What runs on: `text` (events of content), `arguments` (one tool call's arguments, in
       * events), `line` (one event's content with no newline ever), `json` (a body that does
       * not stream, without end).
       */
      what: 'text' | 'arguments' | 'line' | 'json';
      /**
       * A guard for tests run against a reader without caps: past this many bytes the answer
       * ends (unreadable, for `line` and `json`). Default 64 MiB.
       */
      maxBytes?: number;
    };

/** Characters of content in each event of a flood. */
const FLOOD_PIECE = 64 * 1024;

export class ChatScript {
  private readonly turns: ScriptedTurn[] = [];
  private responder: ((body: any) => ScriptedTurn) | undefined;
  private refusal: { status: number; message: string } | undefined;
  private streamOptionsRefused = false;
  /** The held answers' releases (several conversations may be held at once). */
  private readonly gates = new Set<() => void>();
  private heldWaiters: (() => void)[] = [];
  private hangUpWaiters: (() => void)[] = [];
  /** Answers whose client hung up before their end. */
  hangUps = 0;
  /** Bytes every flood has written so far. */
  floodBytes = 0;

  /** Queues answers to the next chat requests, in order. */
  queue(...turns: ScriptedTurn[]): void {
    this.turns.push(...turns);
  }

  /**
   * From now on, answers every request no queued turn answers with what `respond` makes of its
   * body (concurrent conversations, each answered by what it holds); `undefined` stops.
   */
  respondWith(respond: ((body: any) => ScriptedTurn) | undefined): void {
    this.responder = respond;
  }

  /** Turns queued and not answered yet. */
  get pending(): number {
    return this.turns.length;
  }

  /**
   * From now on, refuse every request that carries `tools` with this status and message (a
   * server or model without tool calling), without using up a queued turn; `undefined` stops.
   */
  refuseTools(refusal: { status: number; message: string } | undefined): void {
    this.refusal = refusal;
  }

  /** From now on, refuse requests with `stream_options` (400), like servers that predate it. */
  refuseStreamOptions(refuse = true): void {
    this.streamOptionsRefused = refuse;
  }

  /** Resolves once a held answer has sent its headers and first chunk. */
  held(): Promise<void> {
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  /** Lets every held answer go on. */
  release(): void {
    for (const release of [...this.gates]) release();
    this.gates.clear();
  }

  /** Resolves when the next client hangs up before its answer ended. */
  nextHangUp(): Promise<void> {
    return new Promise((resolve) => this.hangUpWaiters.push(resolve));
  }

  /** Forgets queued turns, refusals and hang-ups. */
  reset(): void {
    this.turns.length = 0;
    this.responder = undefined;
    this.refusal = undefined;
    this.streamOptionsRefused = false;
    this.hangUps = 0;
    this.floodBytes = 0;
    this.release();
  }

  /** @internal Whether the script answers this request (something queued, or a refusal that applies). */
  answers(body: any): boolean {
    return (
      this.turns.length > 0 ||
      this.responder !== undefined ||
      (this.refusal !== undefined && Array.isArray(body?.tools)) ||
      (this.streamOptionsRefused && body?.stream_options !== undefined)
    );
  }

  /** @internal */
  async answer(body: any, res: http.ServerResponse): Promise<void> {
    const error = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
    };
    if (this.streamOptionsRefused && body?.stream_options !== undefined) return error(400, 'Unrecognized request argument supplied: stream_options');
    if (this.refusal && Array.isArray(body?.tools)) return error(this.refusal.status, this.refusal.message);
    const turn = this.turns.shift() ?? this.responder!(body);
    if (turn.kind === 'error') return error(turn.status, turn.message);
    if (turn.kind === 'flood') return this.flood(turn, body, res);

    const usage = turn.usage && {
      prompt_tokens: turn.usage.prompt,
      completion_tokens: turn.usage.completion,
      total_tokens: turn.usage.prompt + turn.usage.completion,
    };
    const calls = turn.kind === 'tools' ? turn.calls : [];
    const finish = turn.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
    const text = turn.text ?? '';
    if (turn.json || body?.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const message = {
        role: 'assistant',
        content: text === '' && calls.length ? null : text,
        ...(calls.length
          ? {
              tool_calls: calls.map((call) => ({
                ...(call.id ? { id: call.id } : {}),
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
      res.end(
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          model: body?.model,
          choices: [{ index: 0, message, finish_reason: finish }],
          ...(usage ? { usage } : {}),
        }),
      );
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let finished = false;
    let ownRelease: (() => void) | undefined;
    res.on('close', () => {
      if (finished) return;
      this.hangUps++;
      ownRelease?.();
      for (const resolve of this.hangUpWaiters.splice(0)) resolve();
    });
    const chunk = (delta: object, finishReason: string | null = null) => ({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      model: body?.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const events: object[] = [chunk({ role: 'assistant', content: '' })];
    const size = turn.kind === 'text' ? (turn.chunkChars ?? 5) : 5;
    for (let at = 0; at < text.length; at += size) events.push(chunk({ content: text.slice(at, at + size) }));
    for (const [index, call] of calls.entries()) {
      const head = { ...(call.id ? { id: call.id } : {}), type: 'function' };
      if (turn.kind === 'tools' && turn.noIndex) {
        events.push(chunk({ tool_calls: [{ ...head, function: { name: call.name, arguments: call.arguments } }] }));
        continue;
      }
      events.push(chunk({ tool_calls: [{ index, ...head, function: { name: call.name, arguments: '' } }] }));
      for (let at = 0; at < call.arguments.length; at += 7)
        events.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(at, at + 7) } }] }));
    }
    events.push(chunk({}, finish));
    // OpenAI's usage chunk: no choices, only when asked for.
    if (usage && body?.stream_options?.include_usage)
      events.push({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model: body?.model, choices: [], usage });

    for (const [i, event] of events.entries()) {
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(event)}\n\n`);
      if (i === 0 && turn.hold) {
        const promise = new Promise<void>((resolve) => (ownRelease = resolve));
        this.gates.add(ownRelease!);
        for (const resolve of this.heldWaiters.splice(0)) resolve();
        await promise;
        this.gates.delete(ownRelease!);
      }
    }
    if (res.destroyed) return;
    finished = true;
    res.end('data: [DONE]\n\n');
  }

  /** Writes the flood's pieces as fast as the client reads them, until it hangs up (or the guard). */
  private async flood(turn: Extract<ScriptedTurn, { kind: 'flood' }>, body: any, res: http.ServerResponse): Promise<void> {
    const maxBytes = turn.maxBytes ?? 64 * 1024 * 1024;
    const text = 'x'.repeat(FLOOD_PIECE);
    const event = (delta: object) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model: body?.model, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    let opening: string;
    let piece: string;
    let closing: string;
    switch (turn.what) {
      case 'text':
        [opening, piece, closing] = [event({ role: 'assistant', content: '' }), event({ content: text }), 'data: [DONE]\n\n'];
        break;
      case 'arguments':
        opening = event({ tool_calls: [{ index: 0, id: 'call_flood', type: 'function', function: { name: 'read_file', arguments: '{"path":"' } }] });
        [piece, closing] = [event({ tool_calls: [{ index: 0, function: { arguments: text } }] }), 'data: [DONE]\n\n'];
        break;
      case 'line':
        [opening, piece, closing] = ['data: {"choices":[{"index":0,"delta":{"content":"', text, ''];
        break;
      case 'json':
        [opening, piece, closing] = ['{"choices":[{"index":0,"message":{"role":"assistant","content":"', text, ''];
        break;
    }
    res.writeHead(200, { 'content-type': turn.what === 'json' ? 'application/json' : 'text/event-stream' });
    let closed = false;
    let written = 0;
    let wake: (() => void) | undefined;
    res.on('close', () => {
      closed = true;
      wake?.();
      if (written >= maxBytes) return;
      this.hangUps++;
      for (const resolve of this.hangUpWaiters.splice(0)) resolve();
    });
    const write = async (chunk: string) => {
      written += chunk.length;
      this.floodBytes += chunk.length;
      if (!res.write(chunk)) await new Promise<void>((resolve) => ((wake = resolve), res.once('drain', resolve)));
    };
    await write(opening);
    while (!closed && written < maxBytes) await write(piece);
    if (!closed) res.end(closing);
  }
}
