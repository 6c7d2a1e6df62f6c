import { defaultDarkTheme, defaultLightTheme, type RaThemeOptions } from 'react-admin';

/**
 * react-admin's themes with fixes found by axe: the light palette's blues were too pale for
 * white text and its red too pale for the Delete button on the form toolbar (WCAG AA contrast), and row checkboxes put their label on the wrapper, not the input.
 */
const components = {
  MuiCheckbox: { defaultProps: { slotProps: { input: { 'aria-label': 'Select this row' } } } },
  // Loading spinners (react-admin's app-bar indicator among them) are progress bars and need a name.
  MuiCircularProgress: { defaultProps: { 'aria-label': 'Loading' } },
};

/**
 * People who ask their system for less motion (prefers-reduced-motion, WCAG 2.3.3) get drawers,
 * dialogs, menus and notifications that appear and go at once: every theme duration is zero, so the
 * transition components' timers end at once too (CSS alone would leave a notification on screen for
 * its exit time). MUI 7 does not read the preference itself (MUI 9 does, as transitions.reducedMotion).
 * Keyframe animations the theme does not time (button ripples) stop through admin/index.html's style.
 * Read once, when the app loads.
 */
const reducedMotion = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
const still = { shortest: 0, shorter: 0, short: 0, standard: 0, complex: 0, enteringScreen: 0, leavingScreen: 0 };
const transitions = reducedMotion ? { transitions: { duration: still, create: () => 'none', getAutoHeightDuration: () => 0 } } : {};

export const lightTheme: RaThemeOptions = {
  ...defaultLightTheme,
  ...transitions,
  palette: { ...defaultLightTheme.palette, primary: { main: '#1565C0' }, secondary: { main: '#0D47A1' }, error: { main: '#B71C1C' } },
  components: { ...defaultLightTheme.components, ...components },
};

export const darkTheme: RaThemeOptions = {
  ...defaultDarkTheme,
  ...transitions,
  components: { ...defaultDarkTheme.components, ...components },
};
