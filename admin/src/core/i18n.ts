import polyglotI18nProvider from 'ra-i18n-polyglot';
import englishMessages from 'ra-language-english';
import { dashboards, responder, screens, shell } from './i18n/en.js';
import { room } from './i18n/room.js';

/** English, with the wording the spec fixes (validation and error messages). */
const messages = {
  ...englishMessages,
  ra: {
    ...englishMessages.ra,
    validation: { ...englishMessages.ra.validation, required: 'This field is required' },
    notification: {
      ...englishMessages.ra.notification,
      // Spec §8's wording of successes ('{Entity} created/updated/deleted successfully.'), where react-admin does not know the entity.
      created: 'Record created successfully.',
      updated: 'Record updated successfully. |||| %{smart_count} records updated successfully.',
      deleted: 'Record deleted successfully. |||| %{smart_count} records deleted successfully.',
      http_error: 'Something has gone wrong. Please, retry or let your admin know that you received this error.',
    },
  },
  fw: {
    created: '%{name} created successfully.',
    updated: '%{name} updated successfully.',
    deleted: '%{name} deleted successfully.',
    shell,
    screens,
    responder,
    dashboards,
    room,
  },
};

export const i18nProvider = polyglotI18nProvider(() => messages, 'en', [{ locale: 'en', name: 'English' }], { allowMissing: true });
