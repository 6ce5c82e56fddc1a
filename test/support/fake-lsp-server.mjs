// A scripted language server for the tests of what Loom does when a server misbehaves. It speaks
// LSP over stdio like a real one and answers hover with the hovered file's first line, unless
// that first line is one of these commands (the test writes the file):
//   crash      exit at once with code 3 (a line on stderr first)
//   hang       stop reading and answering anything, staying alive (a deadlock)
//   slow       answer after N ms (the second word), answering everything else meanwhile
//   flood      send 20,000 window/logMessage notifications, then answer
//   huge       announce a 10 GB message, send its first bytes, then wait
//   garbage    send a message whose body is not JSON
//   memory     take N MB (the second word) of memory and keep it, then answer
//   deaf       stop reading its input (the pipe fills), still alive
//   env        answer with the value of the environment variable named by the second word
//   watched    answer with the workspace/didChangeWatchedFiles changes heard so far (`type uri` lines)
// On every didOpen and didChange it publishes one diagnostic, "fake: <first line>", with the
// document's version. Its environment's FAKE_LSP_LOG, when set, is a file it appends its pid to
// at start.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import process from 'node:process';
import { setTimeout } from 'node:timers';

if (process.env.FAKE_LSP_LOG) fs.appendFileSync(process.env.FAKE_LSP_LOG, `${process.pid}\n`);

const documents = new Map();
const kept = [];
const watched = [];
let buffer = Buffer.alloc(0);
let silent = false;

function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
  process.stdout.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
}

function publish(uri) {
  const document = documents.get(uri);
  const firstLine = document.text.split('\n')[0];
  send({
    method: 'textDocument/publishDiagnostics',
    params: {
      uri,
      version: document.version,
      diagnostics: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: firstLine.length } }, severity: 2, message: `fake: ${firstLine}` }],
    },
  });
}

function handle(message) {
  if (silent) return;
  const { id, method, params } = message;
  switch (method) {
    case 'initialize':
      return send({ id, result: { capabilities: { textDocumentSync: 1, hoverProvider: true } } });
    case 'shutdown':
      return send({ id, result: null });
    case 'exit':
      return process.exit(0);
    case 'textDocument/didOpen':
      documents.set(params.textDocument.uri, { text: params.textDocument.text, version: params.textDocument.version });
      return publish(params.textDocument.uri);
    case 'textDocument/didChange':
      documents.set(params.textDocument.uri, { text: params.contentChanges.at(-1).text, version: params.textDocument.version });
      return publish(params.textDocument.uri);
    case 'textDocument/didClose':
      documents.delete(params.textDocument.uri);
      return send({ method: 'textDocument/publishDiagnostics', params: { uri: params.textDocument.uri, diagnostics: [] } });
    case 'textDocument/hover':
      return hover(id, params);
    case 'workspace/didChangeWatchedFiles':
      for (const change of params.changes) watched.push(`${change.type} ${change.uri}`);
      return;
    default:
      if (id !== undefined) send({ id, error: { code: -32601, message: `no ${method}` } });
  }
}

function hover(id, params) {
  const text = documents.get(params.textDocument.uri)?.text ?? '';
  const [command, argument] = text.split('\n')[0].split(' ');
  switch (command) {
    case 'crash':
      process.stderr.write('fake server: crashing as asked\n');
      return process.exit(3);
    case 'hang':
      silent = true;
      return;
    case 'slow':
      setTimeout(() => send({ id, result: { contents: { kind: 'plaintext', value: 'slow' } } }), Number(argument));
      return;
    case 'flood':
      for (let i = 0; i < 20_000; i++) send({ method: 'window/logMessage', params: { type: 4, message: `line ${i}` } });
      break;
    case 'huge':
      process.stdout.write('Content-Length: 10737418240\r\n\r\n{"jsonrpc":"2.0","method":"x","params":"');
      process.stdout.write('a'.repeat(1024 * 1024));
      silent = true;
      return;
    case 'garbage':
      process.stdout.write('Content-Length: 5\r\n\r\nhello');
      return;
    case 'memory': {
      const block = Buffer.alloc(Number(argument) * 1024 * 1024, 1);
      kept.push(block);
      break;
    }
    case 'watched':
      return send({ id, result: { contents: { kind: 'plaintext', value: watched.join('\n') } } });
    case 'env':
      return send({ id, result: { contents: { kind: 'plaintext', value: process.env[argument] ?? '(unset)' } } });
    case 'deaf':
      process.stdin.pause();
      process.stdin.removeAllListeners('data');
      break;
  }
  send({ id, result: { contents: { kind: 'plaintext', value: text.split('\n')[0] } } });
}

process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())[1]);
    if (buffer.length < end + 4 + length) return;
    const body = buffer.subarray(end + 4, end + 4 + length).toString();
    buffer = buffer.subarray(end + 4 + length);
    handle(JSON.parse(body));
  }
});
process.stdin.on('end', () => process.exit(0));
