/* global process */
// Preloaded (--import) into a process the idle-memory suite measures: on SIGUSR2 it writes
// process.memoryUsage() to MEMORY_PROBE_FILE, so the suite can split RSS into the JS heap and the rest.
import { writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => writeFileSync(process.env.MEMORY_PROBE_FILE, JSON.stringify(process.memoryUsage())));
