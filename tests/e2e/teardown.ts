import { rmSync } from 'node:fs';
import { join } from 'node:path';

/** Removes the run's database folders and the second server's copy of the build (the servers have stopped by now). */
export default function teardown() {
  const dir = process.env.FW_E2E_DATA;
  if (dir && dir.includes('fw-e2e-')) rmSync(dir, { recursive: true, force: true });
  rmSync(join(import.meta.dirname, '..', '..', 'dist', 'admin-e2e-1'), { recursive: true, force: true });
}
