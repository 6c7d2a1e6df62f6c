import type { Role } from './db/tables.js';

/**
 * Who may do what in an organization: the least role each right needs (roles rank Member < Admin <
 * Manager < Owner). The server's checks read this, and the README's "Roles" table states it
 * (tests/server/accounts/rights.test.ts checks both against it).
 */
export const RIGHTS = {
  work: { least: 'Member', what: 'Report and work incidents, cases and tasks; create and edit records and settings' },
  createProjects: { least: 'Member', what: 'Create projects, upload to chat and ask' },
  seeRestricted: { least: 'Admin', what: 'See restricted incidents and cases without being a participant' },
  apiKeys: { least: 'Admin', what: 'See, create and revoke API keys' },
  invite: { least: 'Admin', what: 'Invite people (as Member, Admin or Manager) and see pending invitations' },
  changeRoles: { least: 'Admin', what: "Change a member's role (other than Owner)" },
  removeMembers: { least: 'Admin', what: 'Remove another member' },
  editOrganization: { least: 'Admin', what: 'Edit the organization (banner, open sign-up)' },
  webhooks: { least: 'Admin', what: 'Manage webhooks and send task reminders' },
  integrations: { least: 'Admin', what: 'Configure plugins, and workflows with webhook or e-mail steps' },
  owners: { least: 'Owner', what: 'Invite an Owner, grant or take the Owner role' },
  anonymousAccess: { least: 'Owner', what: 'Switch anonymous visitors (the landing page) on or off' },
  deleteOrganization: { least: 'Owner', what: 'Delete the organization' },
} as const satisfies Record<string, { least: Role; what: string }>;

export type Right = keyof typeof RIGHTS;
