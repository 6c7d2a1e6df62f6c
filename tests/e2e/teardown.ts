import { rmSync } from 'node:fs';

/** Removes the run's database folder (the server has stopped by now). */
export default function teardown() {
  const dir = process.env.FW_E2E_DATA;
  if (dir && dir.includes('fw-e2e-')) rmSync(dir, { recursive: true, force: true });
}
