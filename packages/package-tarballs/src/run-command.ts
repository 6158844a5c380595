import { spawn } from 'node:child_process';

export interface CommandResult {
  /** The exit code; null when a signal ended it. */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CommandOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** Runs a command to its end and gives what it printed; it rejects only when it cannot be started. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The command line and the end of what it printed: enough to see why it failed without rerunning it. */
export function describeRun(
  command: string,
  args: readonly string[],
  cwd: string,
  result: CommandResult,
): string {
  const tail = (text: string) => text.trimEnd().split('\n').slice(-40).join('\n');
  return [
    `\`${[command, ...args].join(' ')}\` in ${cwd} exited with ${result.status}`,
    `--- stdout (end)\n${tail(result.stdout)}`,
    `--- stderr (end)\n${tail(result.stderr)}`,
  ].join('\n');
}

/** Runs a command that must succeed; the error names it and shows the end of its output. */
export async function runOrThrow(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<CommandResult> {
  const result = await runCommand(command, args, options);
  if (result.status !== 0) throw new Error(describeRun(command, args, options.cwd, result));
  return result;
}
