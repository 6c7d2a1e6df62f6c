import { Box, Button, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import { organization, storage } from '../core/org.js';

/** The not-found message, with the way back (shown inside the app too, for unknown screens). */
export function NotFoundContent() {
  const home = storage.token ? `/${organization}/chat` : `/${organization}/landing`;
  return (
    <Box sx={{ py: 4 }}>
      <Typography variant="h4" component="h1" gutterBottom>
        Page not found
      </Typography>
      <Typography sx={{ mb: 2 }}>Either you typed a wrong address, or you followed a bad link.</Typography>
      <Button variant="contained" component={RouterLink} to={home}>
        Go to the start page
      </Button>
    </Box>
  );
}
