/**
 * CPU time of processes on this machine (Linux /proc), so a benchmark can say where each message's
 * CPU goes: gateway, worker, embedded Mongo, Redis, and the load generator itself.
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds a process has used so far, or undefined where /proc is unavailable. */
export function cpuMillis(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The pid of the redis-server listening on `port`, when one runs on this machine. */
export function localRedisPid(port: number): number | undefined {
  try {
    const out = execFileSync('pgrep', ['-f', `redis-server .*:${port}`], { encoding: 'utf8' }).trim().split('\n')[0];
    return out ? Number(out) : undefined;
  } catch {
    return undefined;
  }
}

/** Samples named processes' CPU before and after some work; reports CPU ms per unit of work. */
export class CpuMeter {
  private readonly start = new Map<string, number>();

  constructor(private readonly pids: Record<string, number | undefined>) {}

  begin() {
    for (const [name, pid] of Object.entries(this.pids)) {
      const ms = pid === process.pid ? process.cpuUsage() : undefined;
      const value = ms ? (ms.user + ms.system) / 1000 : pid === undefined ? undefined : cpuMillis(pid);
      if (value !== undefined) this.start.set(name, value);
    }
  }

  /** CPU ms per unit for each process measured, and their total. */
  perUnit(units: number): Record<string, number> {
    const out: Record<string, number> = {};
    let total = 0;
    for (const [name, pid] of Object.entries(this.pids)) {
      const before = this.start.get(name);
      if (before === undefined || pid === undefined) continue;
      const usage = pid === process.pid ? process.cpuUsage() : undefined;
      const now = usage ? (usage.user + usage.system) / 1000 : cpuMillis(pid);
      if (now === undefined) continue;
      const perUnit = (now - before) / units;
      out[name] = Number(perUnit.toFixed(3));
      total += perUnit;
    }
    out.total = Number(total.toFixed(3));
    return out;
  }
}
