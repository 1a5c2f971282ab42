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

/**
 * Samples named processes' CPU around some work; reports CPU ms per unit of work. The work may come in
 * pieces with other work between them: `resume()` and `pause()` around each piece add it up.
 */
export class CpuMeter {
  private readonly start = new Map<string, number>();
  private readonly used = new Map<string, number>();

  constructor(private readonly pids: Record<string, number | undefined>) {}

  /** Starts over: what was added up so far is dropped. */
  begin() {
    this.used.clear();
    this.resume();
  }

  resume() {
    for (const [name, ms] of this.read()) this.start.set(name, ms);
  }

  pause() {
    for (const [name, ms] of this.read()) {
      const before = this.start.get(name);
      if (before !== undefined) this.used.set(name, (this.used.get(name) ?? 0) + ms - before);
    }
    this.start.clear();
  }

  /** CPU ms per unit for each process measured (the pieces added up, and the one running), and their total. */
  perUnit(units: number): Record<string, number> {
    const out: Record<string, number> = {};
    let total = 0;
    const now = this.read();
    for (const name of Object.keys(this.pids)) {
      if (!this.used.has(name) && !this.start.has(name)) continue;
      const running = this.start.has(name) && now.has(name) ? now.get(name)! - this.start.get(name)! : 0;
      const perUnit = ((this.used.get(name) ?? 0) + running) / units;
      out[name] = Number(perUnit.toFixed(3));
      total += perUnit;
    }
    out.total = Number(total.toFixed(3));
    return out;
  }

  private read(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [name, pid] of Object.entries(this.pids)) {
      if (pid === undefined) continue;
      const usage = pid === process.pid ? process.cpuUsage() : undefined;
      const ms = usage ? (usage.user + usage.system) / 1000 : cpuMillis(pid);
      if (ms !== undefined) out.set(name, ms);
    }
    return out;
  }
}
