import type { ComponentType } from 'react';
import { Box, Chip } from '@mui/material';
import { organization } from '../core/org.js';
import { GenericCreate, GenericEdit, GenericList } from '../engine/screens.js';
import type { Screens } from '../engine/registry.js';
import { documentKinds } from './documents.js';

/** Spec §2 marks forms and cost models as Preview: a chip above each of their screens says so. */
function withPreview(Screen: ComponentType) {
  const Previewed = () => (
    <>
      <Box sx={{ mt: 1 }}>
        {/* primary, not info: the light blue fails axe colour contrast on the page background */}
        <Chip label="Preview" color="primary" size="small" variant="outlined" />
      </Box>
      <Screen />
    </>
  );
  return Previewed;
}
const preview: Partial<Screens> = { list: withPreview(GenericList), create: withPreview(GenericCreate), edit: withPreview(GenericEdit) };

/** A source row opens its page (data/sources/{name}/details); editing is one click further. */
const SourceList = () => (
  <GenericList rowClick={(_id, _resource, record) => `/${organization}/data/sources/${encodeURIComponent(String(record.name))}/details`} />
);

/** Spec §9: a document search reloads the list 200 ms after typing, not react-admin's 500. */
const DOCUMENT_SEARCH_DEBOUNCE_MS = 200;
/** A post-incident review opens as a document to read (rendered, editable, exportable); others open their form. */
const documentRow = (id: unknown, _resource: string, record: Record<string, unknown>) =>
  record.resource_type === 'dispatch-incident-review-document' ? `/${organization}/documents/${String(id)}/read` : `/${organization}/documents/${String(id)}`;
const DocumentList = () => <GenericList debounce={DOCUMENT_SEARCH_DEBOUNCE_MS} rowClick={documentRow} />;

/** Screens of the settings, knowledge and catalog resources that differ from the generic ones. */
export const catalogOverrides: Record<string, Partial<Screens>> = {
  forms: preview,
  form_types: preview,
  cost_models: preview,
  'data/sources': { list: SourceList },
  documents: { list: DocumentList },
  ...Object.fromEntries(Object.entries(documentKinds).map(([name, menuLabel]) => [name, { menuLabel, list: DocumentList }])),
};
