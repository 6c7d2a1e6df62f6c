-- Custom SQL migration file, put your code below! --
-- A case's ticket is found by global search (type Ticket) where its case is: an incident's ticket
-- already is, as the incident resource the tickets domain writes.
SELECT search_entries_attach('tickets', $$
  SELECT r.organization_id, r.id::text AS source_id, 'Ticket' AS type, lower(r.resource_id) AS key, r.resource_id || ': ' || c.title AS title,
    '/cases/' || c.name || '/view' AS link, concat_ws(' ', r.weblink, c.name) AS body, NULL::int AS incident_id, r.case_id,
    NULL::text AS sensitivity_level, NULL::int AS created_by, NULL::int AS owner_id, r.updated_at
  FROM {rows} r JOIN cases c ON c.organization_id = r.organization_id AND c.id = r.case_id WHERE r.resource_id IS NOT NULL
$$);
