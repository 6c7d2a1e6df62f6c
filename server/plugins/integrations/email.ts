import { definePlugin } from '../registry.js';

export default definePlugin({
  slug: 'email',
  type: 'email',
  title: 'E-mail (SMTP)',
  description: "Sends e-mail through the server's SMTP settings (SMTP_URL, MAIL_FROM).",
  configuration_schema: {
    type: 'object',
    properties: { default_to: { type: 'string', default: '', title: 'Default recipient' } },
    additionalProperties: false,
  },
  implements: {
    async send_email(plugin, mail, mailer) {
      const to = mail.to || String(plugin.config.default_to ?? '');
      if (!to) throw new Error(`Plugin '${plugin.title}' has no default recipient and the mail names none.`);
      await mailer({ to, subject: mail.subject, text: mail.text });
    },
  },
});
