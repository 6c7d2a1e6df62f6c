import { foreignKey, integer, pgTable } from 'drizzle-orm/pg-core';

/**
 * The keys other domains point at, declared without the tables that own them: incidents and cases
 * are declared in full by their domains (server/incidents, server/cases), but tasks, the timeline and
 * the incident's own parts all need a cascading key to them (and incidents one to signals' entities), and importing the owning domain for a
 * key would make the folders import each other. These stubs name only the key columns; they are not
 * in server/schema.ts, so migrations come from the full tables alone.
 */
const incidentKeys = pgTable('incidents', { organization_id: integer().notNull(), id: integer().notNull() });
const caseKeys = pgTable('cases', { organization_id: integer().notNull(), id: integer().notNull() });
/** Signals' entities, which an incident names (server/signals owns the table and depends on incidents). */
export const entityKeys = pgTable('entities', { organization_id: integer().notNull(), id: integer().notNull() });

/** A cascading foreign key from (organization_id, incident_id) to the incident. */
export const incidentFk = (name: string, t: { organization_id: never; incident_id: never }) =>
  foreignKey({ name, columns: [t.organization_id, t.incident_id], foreignColumns: [incidentKeys.organization_id, incidentKeys.id] }).onDelete('cascade');

/** A cascading foreign key from (organization_id, case_id) to the case. */
export const caseFk = (name: string, t: { organization_id: never; case_id: never }) =>
  foreignKey({ name, columns: [t.organization_id, t.case_id], foreignColumns: [caseKeys.organization_id, caseKeys.id] }).onDelete('cascade');
