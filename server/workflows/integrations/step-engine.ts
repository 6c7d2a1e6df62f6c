import { definePlugin } from '../../plugins/registry.js';
import { runBuiltIn } from '../engine.js';

export default definePlugin({
  slug: 'step-engine',
  type: 'workflow',
  title: 'Built-in step engine',
  description:
    "Runs a workflow's steps inside Firewatch: send a message, send an e-mail, call a webhook, create a task, add a timeline event, set a field, wait.",
  configuration_schema: { type: 'object', properties: {}, additionalProperties: false },
  implements: {
    run_workflow: (deps, _plugin, run) => runBuiltIn(deps, run.instance.id),
  },
});
