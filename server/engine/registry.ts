import type { ResourceDefinition } from './define.js';

/**
 * The registered definitions by model name. Definitions refer to each other by name
 * (`references: { project_id: 'Project' }`), so no definition imports another.
 */
const byModel = new Map<string, ResourceDefinition>();

/** Registers the app's definitions (the app does this once, from every domain's list). */
export function registerResources(definitions: ResourceDefinition[]) {
  for (const def of definitions) {
    const known = byModel.get(def.model);
    if (known && known !== def) throw new Error(`Two resources are named '${def.model}'.`);
    byModel.set(def.model, def);
  }
}

/** The definition of a model, or undefined when none is registered. */
export const findResource = (model: string) => byModel.get(model);

/** The definition of a model a reference names; a name nobody registered is a programming error. */
export function resourceNamed(model: string): ResourceDefinition {
  const def = byModel.get(model);
  if (!def) throw new Error(`No resource named '${model}' is registered.`);
  return def;
}

/** Every registered definition, in registration order. */
export const registeredResources = () => [...byModel.values()];
