// What git's words mean: its messages on stderr turned into the LoomErrors of the error table
// (not_a_repository, repository_busy, remote_auth_failed, …), with credentials in URLs hidden.
// Pure, so that the adapter that runs git (src/adapters/git/git.ts) and its tests share it.
import { LoomError } from '../errors.ts';

/** Paths git lists, tab-indented, under "…would be overwritten by merge:". */
export function listedFiles(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('\t'))
    .map((line) => line.slice(1).trim())
    .filter(Boolean);
}

export function pushRejected(remote: string, branch: string, summary: string): LoomError {
  if (/fetch first|non-fast-forward/.test(summary)) {
    return new LoomError('push_rejected', `${remote} has commits that ${branch} does not have, so the push was rejected.`, 'Pull first, then push again.');
  }
  if (/remote rejected/.test(summary)) {
    const reason = /\((.*)\)\s*$/.exec(summary)?.[1] ?? summary;
    return new LoomError('push_rejected', `${remote} refused the push: ${reason}.`, 'A hook or a branch protection rule on the remote said no.');
  }
  return new LoomError('push_rejected', `The push was rejected: ${summary}.`);
}

/** Hides credentials in URLs (`https://user:token@host` → `https://***@host`). */
export function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@');
}

/** The lines of git's output that say what went wrong, shortened, credentials hidden. */
export function gist(text: string): string {
  const lines = redact(text)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('hint:'));
  const important = lines.filter((line) => /^(fatal|error):/.test(line));
  const chosen = (important.length ? important : lines).slice(0, 4).join(' ');
  return chosen.length > 500 ? `${chosen.slice(0, 497)}...` : chosen || 'no output';
}

/** Recognises the failures every command can meet; the rest is git_failed with git's words. */
export function classify(text: string, network: boolean, remote?: string): LoomError {
  const name = remote ? `The remote ${remote}` : 'The remote';
  if (/dubious ownership/.test(text)) {
    return new LoomError(
      'not_a_repository',
      'git refuses this repository: it belongs to another user (safe.directory).',
      'If you trust it: git config --global --add safe.directory <folder>.',
    );
  }
  if (/cannot use bare repository/.test(text)) {
    return new LoomError(
      'not_a_repository',
      'The workspace folder looks like a bare repository (HEAD, config, objects/, refs/ in it); Loom does not use one it was not told to (safe.bareRepository=explicit).',
      'Open the working tree of a repository; remove those files if they were not meant to be there.',
    );
  }
  if (/not a git repository|must be run in a work tree/.test(text)) {
    return new LoomError(
      'not_a_repository',
      'The workspace folder is not inside a git repository.',
      'Run git init in it, or open a folder that is a repository.',
    );
  }
  if (/\.lock': File exists|Unable to create '[^']*\.lock'|cannot lock ref/.test(text)) {
    return new LoomError(
      'repository_busy',
      'Another git process is working in this repository (a lock file exists).',
      'Wait for it to finish; if none is running, delete the .lock file it names.',
    );
  }
  const transport = /transport '([^']+)' not allowed/.exec(text);
  if (transport) {
    return new LoomError(
      'protocol_not_allowed',
      `${name} uses the ${transport[1]} transport, which Loom never runs.`,
      'Give the remote an https://, ssh:// or file path URL.',
    );
  }
  if (network) {
    if (
      /terminal prompts disabled|could not read (Username|Password)|Authentication failed|Permission denied \(|Host key verification failed|HTTP Basic: Access denied|returned error: 40[13]|invalid credentials/i.test(
        text,
      )
    ) {
      return new LoomError(
        'remote_auth_failed',
        `${name} asked for credentials that git does not have: ${gist(text)}`,
        'Set up a credential helper or an SSH key (Loom never prompts for passwords).',
      );
    }
    if (
      /does not appear to be a git repository|Could not read from remote repository|Could not resolve host|unable to access|Connection refused|Connection timed out|timed out|Network is unreachable|No route to host|not found|hung up|early EOF|unable to connect|Connection reset|SSL|TLS|unable to look up/i.test(
        text,
      )
    ) {
      return new LoomError('remote_unavailable', `${name} could not be reached: ${gist(text)}`, 'Check the remote URL and the network, then try again.');
    }
  }
  return new LoomError('git_failed', `git failed: ${gist(text)}`);
}
