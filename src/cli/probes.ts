// What `loom status` and `loom doctor` look at: whether a Loom server answers at an address, and
// what holds a port. Short time limits: a command that reports must not hang on a dead address.
import net from 'node:net';

export interface ServerProbe {
  url: string;
  /** A Loom server answered its health check. */
  running: boolean;
  version?: string;
  uptime?: number;
  /** Why nothing usable answered: connection refused, a timeout, something that is not Loom. */
  problem?: string;
}

/**
 * GET `healthUrl`; a JSON answer with a version is a running Loom (a 401 from a local API whose
 * token we lack still is one).
 *
 * @example await probeServer('http://127.0.0.1:27432', '/api/health') // { url, running: true, version: '0.1.0', uptime: 12.3 }
 */
export async function probeServer(url: string, healthPath: string, token?: string, timeoutMs = 2000): Promise<ServerProbe> {
  try {
    const response = await fetch(`${url}${healthPath}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
    const body = (await response.json().catch(() => undefined)) as { version?: unknown; uptime?: unknown; error?: unknown } | undefined;
    if (response.ok && typeof body?.version === 'string') {
      return { url, running: true, version: body.version, ...(typeof body.uptime === 'number' ? { uptime: body.uptime } : {}) };
    }
    if (body?.error !== undefined) return { url, running: true, problem: `it answered ${response.status} (a Loom server that wants another token?)` };
    return { url, running: false, problem: `something that is not Loom answers there (HTTP ${response.status})` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if ((error as Error).name === 'TimeoutError') return { url, running: false, problem: `no answer within ${timeoutMs / 1000} s` };
    return { url, running: false, problem: cause?.code === 'ECONNREFUSED' ? 'not running (connection refused)' : (cause?.code ?? (error as Error).message) };
  }
}

/**
 * Whether a TCP port can be listened on at `host` now: 'free', 'in-use', or another error code.
 *
 * @example await portState('127.0.0.1', 27432) // 'free'
 */
export function portState(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE' ? 'in-use' : (error.code ?? error.message)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve('free')));
  });
}
