/**
 * @module bench/process-cpu
 * CPU time another process has used so far (user + system), from Linux's /proc/PID/stat. The
 * throughput rows read it before and after the measured run, which gives each server's CPU cost
 * per request: a figure that does not depend on how fast the load generator, sharing the same
 * two cores, can send.
 */
import { readFileSync } from 'node:fs';

/** /proc reports in USER_HZ, which the kernel's ABI fixes at 100 ticks a second. */
const ticksPerSecond = 100;

/** Milliseconds of CPU the process has used, or undefined where /proc is not available. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const userTicks = Number(fields[11]);
    const systemTicks = Number(fields[12]);
    if (!Number.isFinite(userTicks) || !Number.isFinite(systemTicks)) return undefined;
    return ((userTicks + systemTicks) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
