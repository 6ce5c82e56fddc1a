import os from 'node:os';
import path from 'node:path';

type Env = Record<string, string | undefined>;

/** The user's data folder for Loom, following each platform's convention. */
export function defaultDataDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'Loom');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Loom');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'loom');
}

/** The user's config folder for Loom (settings, credentials). */
export function defaultConfigDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Loom');
  if (platform === 'darwin') return path.join(home, 'Library', 'Preferences', 'Loom');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'loom');
}
