import { Component, lazy, type ComponentType, type ReactNode } from 'react';
import { Alert, Box, Button } from '@mui/material';

/** Spec §8: a part of the app that has not arrived after 120 s is reported as failed (a dead connection would otherwise spin for ever). */
export const CHUNK_TIMEOUT_MS = 120_000;
export const CHUNK_FAILURE = 'Chunk load failure after 120 s';

export function withChunkTimeout<T>(loading: Promise<T>, ms = CHUNK_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(CHUNK_FAILURE)), ms);
    loading.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error instanceof Error ? error : new Error(String(error)))),
    );
  });
}

/** React.lazy of one named export of a module loaded on demand, with the timeout above. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function lazyNamed<K extends string, M extends Record<K, ComponentType<any>>>(load: () => Promise<M>, name: K) {
  return lazy(() => withChunkTimeout(load()).then((m) => ({ default: m[name] })));
}

/** Shows a failed load (the chunk timed out or the network failed) with a way to retry. */
export class ChunkBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  render() {
    if (!this.state.error) return this.props.children;
    return (
      <Box sx={{ p: 4 }}>
        <Alert
          severity="error"
          action={
            <Button color="inherit" onClick={() => window.location.reload()}>
              Reload
            </Button>
          }
        >
          {this.state.error.message === CHUNK_FAILURE ? CHUNK_FAILURE : 'This page could not be loaded. Check your connection and reload.'}
        </Alert>
      </Box>
    );
  }
}
