import { Button } from '@mui/material';
import UpgradeIcon from '@mui/icons-material/Upgrade';
import { Link } from 'react-router-dom';
import { useBasename } from 'react-admin';

/** The toolbar's upgrade action (spec §2): to the plans, until the organization has the top one. */
export function UpgradeAction({ plan }: { plan?: string }) {
  const basename = useBasename();
  if (!plan || plan === 'team_pro') return null;
  return (
    <Button component={Link} to={`${basename}/upgrade`} color="inherit" size="small" startIcon={<UpgradeIcon />} sx={{ mr: 1 }}>
      Upgrade
    </Button>
  );
}
