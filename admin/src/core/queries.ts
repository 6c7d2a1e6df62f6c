import { useQuery, type UseQueryOptions } from '@tanstack/react-query';
import { useDataProvider, type Identifier } from 'react-admin';
import type { FirewatchDataProvider } from './dataProvider.js';

/** The data provider with Firewatch's custom methods (actions and views). */
export const useFirewatchData = () => useDataProvider<FirewatchDataProvider>();

/**
 * A record's read-only view (`{resource}/{id}/{path}`) through react-query's cache, keyed under the
 * resource like react-admin's own queries: invalidating `[resource]` (a reload, a live change) reads
 * it again with the record.
 */
export function useRecordView<T>(
  resource: string,
  id: Identifier | undefined,
  path: string,
  options: Omit<UseQueryOptions<T>, 'queryKey' | 'queryFn'> & { globalErrors?: boolean } = {},
) {
  const dataProvider = useFirewatchData();
  const { globalErrors, ...rest } = options;
  return useQuery<T>({
    queryKey: [resource, 'view', String(id), path],
    queryFn: async ({ signal }) => (await dataProvider.view<T>(resource, { id, path, signal, globalErrors })).data,
    enabled: id !== undefined,
    // A refusal is an answer (a view the caller may not read), not a glitch to retry.
    retry: false,
    ...rest,
  });
}
