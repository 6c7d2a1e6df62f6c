import { Button } from '@mui/material';
import { Link } from 'react-router-dom';
import { useBasename, useTranslate } from 'react-admin';
import { ExportButton } from '../engine/ExportButton.js';
import { GenericList } from '../engine/screens.js';
import { BulkActions } from '../engine/BulkActions.js';
import { organization } from '../core/org.js';
import { ShiftHandoffButton } from './HandoffDialog.js';

/** Above the incident and case lists: the export dialog and the status board (Create is the report form). */
function ResponderActions({ resource }: { resource: 'iaos' | 'cases' }) {
  const translate = useTranslate();
  const basename = useBasename();
  return (
    <>
      <ExportButton />
      <Button size="small" component={Link} to={`${basename}/${resource}/status`}>
        {translate(`fw.responder.status_title.${resource}`)}
      </Button>
    </>
  );
}

/** A row opens the record's own page (iaos/{name}/view), not the raw edit form. */
const viewOf = (resource: 'iaos' | 'cases') => (_id: unknown, _resource: string, record: Record<string, unknown>) =>
  `/${organization}/${resource}/${encodeURIComponent(String(record.name))}/view`;

export const IncidentList = () => <GenericList actions={<ResponderActions resource="iaos" />} rowClick={viewOf('iaos')} bulkActions={<BulkActions />} />;
export const CaseList = () => <GenericList actions={<ResponderActions resource="cases" />} rowClick={viewOf('cases')} bulkActions={<BulkActions />} />;
/** Tasks: bulk edit (status, priority...) and delete, one call per row. */
export const TaskList = () => <GenericList bulkActions={<BulkActions />} />;
/** The handoffs list offers a handoff prefilled from the caller's shift. */
export const HandoffList = () => <GenericList actions={<ShiftHandoffButton />} />;
