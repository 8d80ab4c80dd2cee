// Loaded with `node --import` by the benchmarks: writes the process's peak RSS (KB) on exit.
// On Linux it reads VmHWM from /proc/self/status: the peak of this process image. getrusage's
// maxRSS would do elsewhere, but Linux keeps it across fork and exec, so a child of a big
// parent (the bench runner itself) would report the parent's peak instead of its own.
import { readFileSync, writeFileSync } from 'node:fs';

function peakKb() {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    /* not Linux */
  }
  return process.resourceUsage().maxRSS;
}

const file = process.env.BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(peakKb())));
