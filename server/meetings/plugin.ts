import fp from 'fastify-plugin';
import { registerJobs } from '../core/jobs/define.js';
import { postmortemMeetingJob } from './postmortem.js';

/** Meetings in Google Calendar or Zoom: incident bridges (create_conference) and postmortem reviews. */
export default fp(
  async (scope) => {
    await registerJobs(scope, [postmortemMeetingJob]);
  },
  { name: 'meetings', dependencies: ['firewatch-tenancy', 'firewatch-jobs', 'firewatch-secrets'], fastify: '5.x' },
);
