import { Button, Card, CardContent, CardHeader, Chip, List, ListItem, ListItemButton, ListItemText, Stack, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { Link } from 'react-router-dom';
import { Title, useCreatePath, useGetIdentity, useGetList, useResourceDefinitions } from 'react-admin';
import type { SitePage } from './site.js';
import { PUBLIC_PATHS } from './paths.js';

const KIND_LABELS: Record<SitePage['kind'], string> = { terms: 'Terms of service', privacy: 'Privacy policy', faq: 'FAQ', blog: 'Blog post' };
const publicPath = (p: SitePage) => (p.kind === 'blog' ? `${PUBLIC_PATHS.blog}/${p.id}` : PUBLIC_PATHS[p.kind]);

/**
 * admin/content_manager: the organization's curated content in one place: the public pages (terms,
 * privacy policy, FAQ, blog; the Owner writes them) and the curated content items that trend.
 */
export function ContentManager() {
  const createPath = useCreatePath();
  const { identity } = useGetIdentity();
  const resources = useResourceDefinitions();
  const isOwner = identity?.role === 'Owner';
  const { data: pages = [], isPending } = useGetList<SitePage & { published: boolean }>('site/pages', {
    pagination: { page: 1, perPage: 100 },
    sort: { field: 'created_at', order: 'DESC' },
  });
  const { total: curated } = useGetList('curated_content', { pagination: { page: 1, perPage: 1 } }, { enabled: !!resources['curated_content'] });
  return (
    <Stack spacing={2} sx={{ mt: 2, maxWidth: 960 }}>
      <Title title="Content manager" />
      <Card>
        <CardHeader
          title="Public pages"
          titleTypographyProps={{ component: 'h2', variant: 'h6' }}
          subheader={isOwner ? 'Terms of service, privacy policy, FAQ and blog, as visitors see them.' : 'Only the Owner of the organization may write these.'}
          action={
            isOwner ? (
              <Button component={Link} to={createPath({ resource: 'site/pages', type: 'create' })} startIcon={<AddIcon />}>
                New page
              </Button>
            ) : null
          }
        />
        <CardContent>
          {!isPending && !pages.length ? <Typography>No public pages yet: visitors see a notice instead of terms, privacy policy and FAQ.</Typography> : null}
          <List dense aria-label="Public pages">
            {pages.map((p) => (
              <ListItem
                key={p.id}
                disablePadding
                secondaryAction={
                  <Button size="small" component="a" href={publicPath(p)} target="_blank" rel="noopener">
                    View
                  </Button>
                }
              >
                <ListItemButton component={Link} to={createPath({ resource: 'site/pages', type: 'edit', id: p.id })} disabled={!isOwner}>
                  <ListItemText
                    primary={p.title}
                    secondary={
                      <>
                        {KIND_LABELS[p.kind]}
                        {p.published ? null : <Chip component="span" size="small" label="Draft" sx={{ ml: 1 }} />}
                      </>
                    }
                  />
                </ListItemButton>
              </ListItem>
            ))}
          </List>
        </CardContent>
      </Card>
      {resources['curated_content'] ? (
        <Card>
          <CardHeader
            title="Curated content"
            titleTypographyProps={{ component: 'h2', variant: 'h6' }}
            subheader={`${curated ?? '…'} items; the most engaged ones trend on the landing page.`}
          />
          <CardContent>
            <Button component={Link} to={createPath({ resource: 'curated_content', type: 'list' })}>
              Open curated content
            </Button>
          </CardContent>
        </Card>
      ) : null}
    </Stack>
  );
}
