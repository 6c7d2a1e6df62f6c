import { fsyncSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * PGlite's data folder, made durable. PGlite starts PostgreSQL with `-F` (fsync off), and its
 * Emscripten NODEFS has no fsync stream operation, so an acknowledged commit sat in the OS page cache
 * only (an OS crash or power loss could lose it). Here PostgreSQL runs with fsync on and
 * wal_sync_method=fsync (fdatasync reaches a no-op in Emscripten; fsync reaches the stream's `fsync`),
 * and NODEFS gets an `fsync` that calls the real fsync(2) on the file's descriptor: a commit returns
 * once its WAL is on disk, and checkpoints sync the data files as PostgreSQL intends.
 */
class SyncedNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]) {
    const result = await super.init(pg, opts);
    type Stream = { nfd?: number };
    type Mod = { NODEFS: { stream_ops: Record<string, unknown>; tryFSOperation<T>(fn: () => T): T } };
    const preRun = (result.emscriptenOpts.preRun ?? []) as ((mod: Mod) => void)[];
    // Before PostgreSQL starts, so recovery and its end-of-recovery checkpoint sync too. Node errors
    // become errno values, which PostgreSQL turns into a PANIC rather than carrying on unsynced.
    result.emscriptenOpts.preRun = [
      ...preRun,
      (mod: Mod) => {
        mod.NODEFS.stream_ops.fsync = (stream: Stream) => mod.NODEFS.tryFSOperation(() => (stream.nfd === undefined ? 0 : (fsyncSync(stream.nfd), 0)));
      },
    ] as never;
    return result;
  }
}

/** PGlite's start parameters with fsync on (PGlite's own defaults otherwise). */
export const durableStartParams = () => [...PGlite.defaultStartParams.filter((p) => p !== '-F'), '-c', 'wal_sync_method=fsync'];

/** The file system that makes a PGlite on `dataDir` (a folder on disk) sync its commits, with durableStartParams. */
export const syncedFs = (dataDir: string) => new SyncedNodeFS(dataDir);
