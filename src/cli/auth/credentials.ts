// The CLI's sign-ins, one per hosted server, in `<config dir>/credentials.json`: readable by
// the user only (file 0600, folder 0700; made so, with a warning, when found looser), replaced
// atomically (temp file + rename) so that a crash never leaves half a file, and changed under a
// lock file so that two `loom` processes refreshing at once do not both spend the same refresh
// token (the server would see the reuse and revoke the whole sign-in).
import fs from 'node:fs';
import path from 'node:path';
import { defaultConfigDir } from '../../config/paths.ts';
import { ensurePrivateDir, tightenPrivateFile, type ModeWarning } from '../../core/files/private-files.ts';
import { writeFileAtomically } from '../../core/files/write-atomically.ts';
import { CliError } from '../errors.ts';
import { printWarning } from '../output.ts';

export const CREDENTIALS_FILE = 'credentials.json';

/** What is kept for one server. Times are ISO 8601; `scope` is space-delimited. */
export interface ServerCredentials {
  access_token: string;
  refresh_token?: string;
  /** When the access token expires, by this machine's clock. */
  expires_at: string;
  scope: string;
  token_endpoint: string;
  issuer: string;
  id_token?: string;
}

export interface CredentialsFile {
  servers: Record<string, ServerCredentials>;
}

type Env = Record<string, string | undefined>;

const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 15_000;

export class CredentialStore {
  readonly file: string;

  /** `warn` hears of a folder or file found open to other users (and made owner-only). */
  constructor(
    readonly dir: string = defaultConfigDir(),
    private readonly warn: ModeWarning = printWarning,
  ) {
    this.file = path.join(dir, CREDENTIALS_FILE);
  }

  static fromEnv(env: Env = process.env): CredentialStore {
    return new CredentialStore(defaultConfigDir(env));
  }

  read(): CredentialsFile {
    let text: string;
    try {
      tightenPrivateFile(this.file, this.warn);
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: {} };
      throw new CliError(`cannot read ${this.file}: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new CliError(`${this.file} is not valid JSON; remove it and run loom login again`);
    }
    const servers = (parsed as Partial<CredentialsFile> | null)?.servers;
    if (!servers || typeof servers !== 'object' || Array.isArray(servers)) {
      throw new CliError(`${this.file} has no "servers" object; remove it and run loom login again`);
    }
    return { servers };
  }

  get(server: string): ServerCredentials | undefined {
    const { servers } = this.read();
    return Object.hasOwn(servers, server) ? servers[server] : undefined;
  }

  /** Reads, changes and writes the file while holding the lock. */
  async update<T>(change: (file: CredentialsFile) => T | Promise<T>): Promise<T> {
    return this.locked(async () => {
      const current = this.read();
      const result = await change(current);
      this.writeHeld(current);
      return result;
    });
  }

  /** Runs `work` while holding `credentials.json.lock` (a lock older than 30 s is taken over). */
  async locked<T>(work: () => Promise<T>): Promise<T> {
    this.ensureDir();
    const lock = `${this.file}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        fs.closeSync(fs.openSync(lock, 'wx', 0o600));
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new CliError(`cannot lock ${this.file}: ${(error as Error).message}`);
      }
      if (isStale(lock)) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new CliError(`${lock} is held by another loom process; remove it if none is running`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      return await work();
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }

  /**
   * Replaces the file: temp file (0600) in the same folder, fsync, rename over the old file.
   * Only while holding the lock (inside locked(), or through update()).
   */
  writeHeld(contents: CredentialsFile): void {
    this.ensureDir();
    try {
      writeFileAtomically(this.file, JSON.stringify(contents, null, 2) + '\n', 0o600);
    } catch (error) {
      throw new CliError(`cannot write ${this.file}: ${(error as Error).message}`);
    }
  }

  private ensureDir(): void {
    try {
      ensurePrivateDir(this.dir, this.warn);
    } catch (error) {
      throw new CliError(`cannot create ${this.dir}: ${(error as Error).message}`);
    }
  }
}

function isStale(lock: string): boolean {
  try {
    return Date.now() - fs.statSync(lock).mtimeMs > LOCK_STALE_MS;
  } catch {
    return false; // gone already: the next attempt takes it
  }
}
