import type { SeedContext } from '../core/seeds.js';
import { costModels } from './tables.js';

/** A new organization's cost model: five minutes of someone's time per activity (incidents/costs.ts's default, written out so it can be tuned). */
export async function seedCostModel({ tx, orgId, projectId }: SeedContext) {
  const activities = ['timeline_event', 'comment', 'conversation_message'].map((plugin_event) => ({ plugin_event, response_time_seconds: 300, enabled: true }));
  await tx
    .insert(costModels)
    .values({
      organization_id: orgId,
      project_id: projectId,
      name: 'Default cost model',
      description: "Five minutes of a participant's time for each timeline event, comment or conversation message.",
      activities,
    })
    .onConflictDoNothing();
}
