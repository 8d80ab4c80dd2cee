// Loaded with `node --import` by the benchmarks: writes the process's peak RSS (KB) on exit.
import { writeFileSync } from 'node:fs';
const file = process.env.BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
