import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Child processes started in a process group of their own. One signal to the group then reaches
 * everything the child starts in turn (tsx's node process, a browser's helpers), and a terminal's
 * Ctrl-C reaches only the process that owns the group, which stops it in order (`npm start` drains
 * its requests before it stops DynamoDB Local).
 *
 * A group ends with its leader: whatever the leader leaves behind in it is killed. The groups a process
 * owns are ended when it exits, or when a signal it does not handle itself ends it. Only a SIGKILL
 * escapes that, so when REGISTRY_VARIABLE names a directory (the test run sets one, and every process
 * started under it inherits it) each group is also recorded there while it runs, with the group of
 * the process that started it: the test run ends what a killed process left (`endRecordedGroups`).
 */
export const REGISTRY_VARIABLE = 'RECOVERY_PROCESS_REGISTRY';

interface GroupRecord {
  pgid: number;
  /** The process group of the process that started this one: ending that group ends this one too. */
  starter_group: number | null;
  command: string;
}

/** The process groups this process started and that still run. */
const owned = new Set<number>();
let hooked = false;
let ownGroup: number | null | undefined;

function processGroupOf(pid: number): number | null {
  try {
    return Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim()) || null;
  } catch {
    return null;
  }
}

/** Signal 0 only asks whether the group still exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is already gone
  }
}

function recordFile(pgid: number): string | undefined {
  const registry = process.env[REGISTRY_VARIABLE];
  return registry ? join(registry, `${pgid}.json`) : undefined;
}

function readRecords(registry: string): GroupRecord[] {
  if (!existsSync(registry)) return [];
  return readdirSync(registry)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      try {
        return [JSON.parse(readFileSync(join(registry, name), 'utf8')) as GroupRecord];
      } catch {
        return []; // being written or removed at this moment
      }
    });
}

/** Kills a group and, through the registry, every group started from inside it (a local server's JVM). */
function killGroupTree(pgid: number, signal: NodeJS.Signals): void {
  signalGroup(pgid, signal);
  const registry = process.env[REGISTRY_VARIABLE];
  if (!registry) return;
  for (const record of readRecords(registry).filter((entry) => entry.starter_group === pgid)) {
    killGroupTree(record.pgid, signal);
    // Kept after a mere SIGTERM: if that group ignores it, the test run's teardown still finds it.
    if (signal === 'SIGKILL') rmSync(join(registry, `${record.pgid}.json`), { force: true });
  }
}

function endOwnedGroups(signal: NodeJS.Signals): void {
  for (const pgid of owned) killGroupTree(pgid, signal);
}

function onSignal(signal: NodeJS.Signals): void {
  // A program with its own handler stops its children itself, in its own order (npm start drains first).
  if (process.listenerCount(signal) > 1) return;
  endOwnedGroups('SIGTERM');
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => endOwnedGroups('SIGTERM'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
}

/** Groups being stopped by `endGroup`: they get its grace period even if their leader exits first. */
const ending = new Set<number>();

function forget(pgid: number): void {
  owned.delete(pgid);
  const file = recordFile(pgid);
  if (file) rmSync(file, { force: true });
}

/** `spawn`, in a new process group that this process owns until it ends. */
export function spawnInGroup(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  hookExit();
  const child = spawn(command, args, { ...options, detached: true });
  const pgid = child.pid;
  if (pgid === undefined) return child; // failed to start: the 'error' event says why
  owned.add(pgid);
  const file = recordFile(pgid);
  if (file) {
    ownGroup ??= processGroupOf(process.pid);
    const record: GroupRecord = { pgid, starter_group: ownGroup, command: [command, ...args].join(' ') };
    writeFileSync(file, JSON.stringify(record));
  }
  child.once('exit', () => {
    if (ending.has(pgid)) return;
    killGroupTree(pgid, 'SIGKILL');
    forget(pgid);
  });
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/**
 * Asks a group to stop and waits until none of it is left: SIGTERM to the leader (tsx passes it on to
 * the program it runs), or with `interrupt` SIGINT to every process of the group, as a terminal's
 * Ctrl-C (after which npm and sh end at once, while the server they started still drains). After
 * `graceMs` whatever is left of the group, and the groups started inside it, is killed.
 */
export async function endGroup(child: ChildProcess, options: { graceMs?: number; interrupt?: boolean } = {}): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  ending.add(pgid);
  const done = exited(child);
  if (options.interrupt) signalGroup(pgid, 'SIGINT');
  else child.kill('SIGTERM');
  const deadline = Date.now() + (options.graceMs ?? 10_000);
  while (signalGroup(pgid, 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  killGroupTree(pgid, 'SIGKILL');
  await done;
  ending.delete(pgid);
  forget(pgid);
}

/**
 * Ends every group still recorded in `registry`, whose starter died without ending it, and returns
 * their commands. A starter that was just stopped may have signalled its groups a moment ago, so
 * they get `graceMs` to finish before they count as left behind and are killed.
 */
export async function endRecordedGroups(registry: string, graceMs = 10_000): Promise<string[]> {
  const alive = () => readRecords(registry).filter((record) => signalGroup(record.pgid, 0));
  for (let waited = 0; waited < graceMs && alive().length > 0; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  const left = alive();
  for (const record of left) killGroupTree(record.pgid, 'SIGKILL');
  return left.map((record) => record.command);
}

export interface RunningProcess {
  pid: number;
  parent: number;
  command: string;
}

/**
 * The processes whose environment holds `name=value`: every process started, at any depth, under a
 * process that set it. Linux only (it reads /proc); elsewhere it finds none.
 */
export function processesWithVariable(name: string, value: string): RunningProcess[] {
  if (!existsSync('/proc')) return [];
  const wanted = `${name}=${value}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .flatMap((entry) => {
      try {
        const environment = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
        if (!environment.includes(wanted)) return [];
        const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
        // stat is "pid (name) state ppid ...", and the name may hold spaces and parentheses.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
        return command ? [{ pid: Number(entry), parent, command }] : []; // an empty cmdline is a zombie
      } catch {
        return []; // gone meanwhile, or not ours to read
      }
    });
}
