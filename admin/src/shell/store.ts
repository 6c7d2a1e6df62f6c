import { localStorageStore, type Store } from 'react-admin';

/**
 * react-admin's store, except that the theme and the drawer state live under the localStorage keys the
 * spec names: `dark_theme` ('true'/'false') and `mini_nav` ('true' = drawer minimized, the default).
 */
const SPEC_KEYS: Record<string, { key: string; read: (raw: string | null) => unknown; write: (value: unknown) => string }> = {
  theme: { key: 'dark_theme', read: (raw) => (raw === 'true' ? 'dark' : 'light'), write: (value) => String(value === 'dark') },
  'sidebar.open': { key: 'mini_nav', read: (raw) => raw === 'false', write: (value) => String(!value) },
};

export function shellStore(): Store {
  const inner = localStorageStore(undefined, 'Firewatch');
  return {
    ...inner,
    setup() {
      inner.setup();
      for (const [name, spec] of Object.entries(SPEC_KEYS)) {
        const value = spec.read(localStorage.getItem(spec.key));
        localStorage.setItem(spec.key, spec.write(value));
        inner.setItem(name, value);
      }
    },
    setItem(name, value) {
      const spec = SPEC_KEYS[name];
      if (spec) localStorage.setItem(spec.key, spec.write(value));
      inner.setItem(name, value);
    },
  };
}
