import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { inTenant } from '../core/tenancy.js';
import { createInvitation, invitationBody, invitationResource, sendInvitation } from './invitations.js';
import { getRecord } from '../engine/crud.js';
import { bool, messageAnswer, recordOf } from '../engine/answers.js';

/**
 * POST /users invites: `users` is shared by organizations, so adding a person (new, or a user of other
 * organizations) makes an invitation they accept; the answer is the invitation, whoever the e-mail is.
 */
export function registerInvitationRoutes(scope: FastifyInstance) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/users',
    {
      schema: {
        tags: ['User'],
        summary: 'Invite a person by e-mail (they join when they accept)',
        body: invitationBody,
        ...messageAnswer({ invitation: recordOf(invitationResource), emailed: bool }, 201),
      },
    },
    async (req, reply) => {
      const { invitation, token, inviter } = await inTenant(req, async (ctx) => {
        const made = await createInvitation(ctx, req.body);
        return { ...made, invitation: await getRecord(invitationResource, ctx, made.id) };
      });
      const emailed = await sendInvitation(req, invitation as never, token, inviter);
      const message = emailed
        ? `Invitation sent to ${String(invitation.email)}.`
        : `${String(invitation.email)} is invited, but the e-mail could not be sent: they can accept by signing in with the e-mail code, or invite them again to resend it.`;
      return reply.status(201).send({ message, invitation, emailed });
    },
  );
}
