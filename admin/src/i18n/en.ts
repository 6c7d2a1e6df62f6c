/** English wording of the admin shell (layout, toolbar, notifications), merged under `fw.shell`. */
export const shell = {
  dismiss: 'Dismiss',
  fullscreen_enter: 'Enter full screen',
  fullscreen_exit: 'Exit full screen',
  overview: 'Overview',
  chat: 'Chat',
  sign_in: 'Sign in',
};
