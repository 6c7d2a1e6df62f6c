import { Button } from '@mui/material';
import { Link } from 'react-router-dom';
import { CreateButton, useCreatePath, useGetList, usePermissions } from 'react-admin';
import { metaOf } from '../core/meta.js';
import { GenericList } from '../engine/screens.js';

/**
 * Members: people join by invitation (the server's POST /users invites), so the list offers "Invite"
 * and, for Admins and above, a link to the pending invitations with their count.
 */
function MemberActions() {
  const { permissions } = usePermissions<string>();
  // Invitations are the Admins' (their writeRole); Members see none.
  const canInvite = !!metaOf('invitations') && ['Admin', 'Manager', 'Owner'].includes(permissions ?? '');
  const createPath = useCreatePath();
  const { total } = useGetList('invitations', { pagination: { page: 1, perPage: 1 } }, { enabled: canInvite });
  if (!canInvite) return null;
  return (
    <>
      <Button component={Link} to={createPath({ resource: 'invitations', type: 'list' })} size="small">
        Pending invitations ({total ?? 0})
      </Button>
      <CreateButton resource="invitations" label="Invite" />
    </>
  );
}

export const MemberList = () => <GenericList actions={<MemberActions />} />;
