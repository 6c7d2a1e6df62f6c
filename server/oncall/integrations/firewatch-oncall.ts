import { definePlugin } from '../../plugins/registry.js';
import { policyOfService, resolveTargets } from '../whos-on.js';
import '../capabilities.js';

/**
 * Firewatch's own on-call: schedules and escalation policies kept here. A service of type
 * `firewatch-oncall` names its escalation policy's id as its `external_id`. Used when no other
 * on-call plugin is enabled; its pages escalate through server/oncall/escalation.ts.
 */
export default definePlugin({
  slug: 'firewatch-oncall',
  type: 'oncall',
  title: 'Firewatch on-call',
  description: "Firewatch's own schedules and escalation policies (On-call in the menu).",
  configuration_schema: { type: 'object', properties: {}, additionalProperties: false },
  implements: {
    async who_is_on_call(_plugin, { service, at }, { tenant }) {
      return tenant(async (ctx) => {
        const policy = await policyOfService(ctx, service);
        const first = policy?.steps[0];
        return first ? (await resolveTargets(ctx, first.targets, at)).map((email) => ({ email, level: 1 })) : [];
      });
    },
    // Its pages start escalating as they are created (pages.ts): nothing to send elsewhere.
    async page() {
      return { external_id: null };
    },
  },
});
