// `loom status`: what runs where, from this machine's settings: the local API and the hosted API
// (do they answer, which version, since when), the store, the folders, the models installed and
// the completion provider, and the sign-ins the CLI holds. It only looks: nothing is created.
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { publicUrlFor } from '../../config/load.ts';
import { cliAction } from '../errors.ts';
import { addSettingOptions, configFromOptions } from '../options.ts';
import { formatTable, oneLine, print, printJson } from '../output.ts';
import { probeServer, type ServerProbe } from '../probes.ts';

/** The settings that say where things are; `loom status --port 9999` looks for a local API there. */
export const STATUS_SETTINGS = ['configDir', 'dataDir', 'workspace', 'local.port', 'hosted.host', 'publicUrl', 'modelsDir', 'catalog'] as const;

export interface StatusReport {
  version: string;
  configFile: string | null;
  folders: { config: string; data: string; models: string; workspace: string };
  local: ServerProbe;
  hosted: ServerProbe;
  store: { kind: 'sqlite' | 'postgres'; location: string; exists: boolean | null };
  completion: { provider: string; modelsInstalled: string[] };
  signIns: { server: string; expiresAt: string; renewable: boolean }[];
}

/** `loom status`. */
export function statusCommand(): Command {
  const command = new Command('status')
    .description('what runs where: the local and hosted APIs, the store, folders, models, sign-ins')
    .option('--json', 'print the report as JSON');
  return addSettingOptions(command, STATUS_SETTINGS).action(
    cliAction(async (options: { json?: boolean }, self: Command) => {
      const report = await statusReport(self);
      if (options.json) return printJson(report);
      print(formatStatus(report));
    }),
  );
}

/**
 * The report for a command's settings.
 *
 * @example const report = await statusReport(command); report.local.running // true
 */
export async function statusReport(command: Command): Promise<StatusReport> {
  const config = configFromOptions(command);
  const [{ LOOM_VERSION }, { SQLITE_FILE }, { loadCatalog }, { ModelLibrary }, { CredentialStore }] = await Promise.all([
    import('../../config/version.ts'),
    import('../../store/database.ts'),
    import('../../core/catalog/load.ts'),
    import('../../adapters/models/library.ts'),
    import('../auth/credentials.ts'),
  ]);
  const token = readToken(config.local.configDir);
  const [local, hosted] = await Promise.all([
    probeServer(`http://127.0.0.1:${config.local.port}`, '/api/health', token),
    probeServer(publicUrlFor(config), '/api/v1/health'),
  ]);
  const sqlite = path.join(config.dataDir, SQLITE_FILE);
  const store = config.databaseUrl
    ? { kind: 'postgres' as const, location: redact(config.databaseUrl), exists: null }
    : { kind: 'sqlite' as const, location: sqlite, exists: fs.existsSync(sqlite) };
  const library = new ModelLibrary(loadCatalog(config.catalog), config.modelsDir);
  const credentials = new CredentialStore(config.local.configDir, () => {}).read();
  return {
    version: LOOM_VERSION,
    configFile: config.configFile ?? null,
    folders: { config: config.local.configDir, data: config.dataDir, models: config.modelsDir, workspace: config.local.workspace },
    local,
    hosted,
    store,
    completion: {
      provider: config.completion.provider,
      modelsInstalled: library
        .list()
        .filter((row) => row.installed)
        .map((row) => row.model.name),
    },
    signIns: Object.entries(credentials.servers).map(([server, stored]) => ({
      server,
      expiresAt: stored.expires_at,
      renewable: Boolean(stored.refresh_token),
    })),
  };
}

function formatStatus(report: StatusReport): string {
  const server = (probe: ServerProbe) =>
    probe.running
      ? `running${probe.version ? ` (Loom ${probe.version}${probe.uptime !== undefined ? `, up ${Math.round(probe.uptime)} s` : ''})` : ''}`
      : (probe.problem ?? 'not running');
  const rows = [
    ['Local API', report.local.url, server(report.local)],
    ['Hosted API', report.hosted.url, server(report.hosted)],
    ['Store', report.store.location, `${report.store.kind}${report.store.exists === false ? ' (not created yet)' : ''}`],
    [
      'Completion',
      report.completion.provider,
      report.completion.modelsInstalled.length
        ? `GGUF models installed: ${report.completion.modelsInstalled.join(', ')}`
        : 'no GGUF model installed (loom models pull NAME)',
    ],
    ['Workspace', report.folders.workspace, ''],
    ['Config folder', report.folders.config, report.configFile ? `config file ${report.configFile}` : 'no config file'],
    ['Data folder', report.folders.data, ''],
    ['Models folder', report.folders.models, ''],
    ...(report.signIns.length
      ? report.signIns.map((signIn) => ['Signed in', signIn.server, `until ${signIn.expiresAt}${signIn.renewable ? ' (renewed automatically)' : ''}`])
      : [['Signed in', '-', 'nowhere (loom login)']]),
  ];
  return `Loom ${oneLine(report.version)}\n${formatTable(rows).replace(/ +$/gm, '')}\n`;
}

/** The local API token, when settings.json is there (status creates nothing). */
function readToken(configDir: string): string | undefined {
  try {
    const settings = JSON.parse(fs.readFileSync(path.join(configDir, 'settings.json'), 'utf8')) as { apiToken?: unknown };
    return typeof settings.apiToken === 'string' ? settings.apiToken : undefined;
  } catch {
    return undefined;
  }
}

/** A database URL without its password. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}
