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

export const lightTheme: RaThemeOptions = {
  ...defaultLightTheme,
  palette: { ...defaultLightTheme.palette, primary: { main: '#1565C0' }, secondary: { main: '#0D47A1' }, error: { main: '#B71C1C' } },
  components: { ...defaultLightTheme.components, ...components },
};

export const darkTheme: RaThemeOptions = {
  ...defaultDarkTheme,
  components: { ...defaultDarkTheme.components, ...components },
};
