import { Card, CardContent, CardHeader, Chip, Grid, List, ListItem, ListItemButton, ListItemText, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { Title, useCreatePath, useGetIdentity, useResourceDefinitions } from 'react-admin';
import { GROUP_ORDER, groupOf } from '../shell/groups.js';
import { trialDaysLeft, useOrganizations } from '../shell/useOrganization.js';

/** Landing screen: the organization, its plan, and every screen by group. */
export function Dashboard() {
  const { current } = useOrganizations();
  const { identity } = useGetIdentity();
  const resources = useResourceDefinitions();
  const createPath = useCreatePath();
  const days = current ? trialDaysLeft(current) : null;
  const groups = GROUP_ORDER.map((g) => ({ group: g, items: Object.values(resources).filter((r) => r.hasList && groupOf(r.name) === g) })).filter(
    (g) => g.items.length,
  );
  return (
    <>
      <Title title="Overview" />
      <Grid container spacing={2} sx={{ mt: 1 }}>
        <Grid size={{ xs: 12, md: 4 }}>
          <Card>
            <CardHeader title={current?.name ?? '…'} subheader={current?.description} />
            <CardContent>
              <Typography variant="body2">
                Plan: <Chip size="small" label={current?.plan ?? '…'} />
              </Typography>
              {days !== null ? (
                <Typography variant="body2" sx={{ mt: 1 }}>
                  {days > 0 ? `Trial: ${days} day${days === 1 ? '' : 's'} left` : 'Trial expired'}
                </Typography>
              ) : null}
              <Typography variant="body2" sx={{ mt: 1 }}>
                Signed in as {identity?.fullName} ({identity?.role})
              </Typography>
            </CardContent>
          </Card>
        </Grid>
        {groups.map(({ group, items }) => (
          <Grid key={group} size={{ xs: 12, sm: 6, md: 4 }}>
            <Card>
              <CardHeader title={group} titleTypographyProps={{ variant: 'h6', component: 'h2' }} />
              <List dense>
                {items.map((r) => (
                  <ListItem key={r.name} disablePadding>
                    <ListItemButton component={Link} to={createPath({ resource: r.name, type: 'list' })}>
                      <ListItemText primary={String(r.options?.menuLabel ?? r.name)} />
                    </ListItemButton>
                  </ListItem>
                ))}
              </List>
            </Card>
          </Grid>
        ))}
      </Grid>
    </>
  );
}
