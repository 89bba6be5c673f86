import { readFileSync } from 'node:fs';

/**
 * CPU accounting from /proc (Linux), so that a run disturbed by other work on the machine shows it: the
 * CPU each side spent per request holds steady when requests/s do not.
 */

const tickMs = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process in ticks; 0 when it is gone or /proc is not there. */
function processTicks(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

function machineTicks(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = values.reduce((sum, value) => sum + value, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

export interface CpuSnapshot {
  server: number;
  backends: number;
  loadGenerator: number;
  machine: { busy: number; total: number };
}

export function cpuSnapshot(serverPid: number | undefined, backends: number[]): CpuSnapshot {
  const own = process.cpuUsage();
  return {
    server: processTicks(serverPid),
    backends: backends.reduce((sum, pid) => sum + processTicks(pid), 0),
    loadGenerator: (own.user + own.system) / 1000 / tickMs,
    machine: machineTicks(),
  };
}

export interface CpuShares {
  /** Milliseconds of CPU per request. */
  serverMs: number;
  backendsMs: number;
  loadGeneratorMs: number;
  /** Share of the whole machine (all cores) busy, and busy with processes other than these three. */
  machineBusy: number;
  others: number;
}

export function cpuShares(before: CpuSnapshot, after: CpuSnapshot, requests: number): CpuShares {
  const server = after.server - before.server;
  const backends = after.backends - before.backends;
  const loadGenerator = after.loadGenerator - before.loadGenerator;
  const total = after.machine.total - before.machine.total || 1;
  const busy = after.machine.busy - before.machine.busy;
  return {
    serverMs: (server * tickMs) / requests,
    backendsMs: (backends * tickMs) / requests,
    loadGeneratorMs: (loadGenerator * tickMs) / requests,
    machineBusy: busy / total,
    others: Math.max(0, busy - server - backends - loadGenerator) / total,
  };
}
