import { useCallback, useEffect, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardActions,
  CardContent,
  CardHeader,
  Chip,
  Grid,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  Typography,
} from '@mui/material';
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import { Title, useGetIdentity, useNotify, usePermissions, useRefresh } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { useFirewatchData } from '../core/queries.js';
import { forgetCurrentUser } from '../core/authProvider.js';
import { storage } from '../core/org.js';

type Plan = 'free' | 'pro' | 'team_pro';

interface PlanEntry {
  plan: Plan;
  label: string;
  paid: boolean;
  custom_settings: boolean;
  max_file_bytes: number;
  files_per_project: number;
  messages_per_day: number;
}

export interface BillingState {
  enabled: boolean;
  plans: PlanEntry[];
  support_email: string;
  plan: Plan;
  subscription_status: string;
  subscription_end_date: string | null;
  cancel_at_period_end: boolean;
  free_trial_end: string | null;
}

/** Spec §9: subscription messages stay 5 s. */
const SUBSCRIPTION_MESSAGE_MS = 5000;
const UPGRADE_PATH: Record<Exclude<Plan, 'free'>, string> = { pro: 'upgrade-to-pro', team_pro: 'upgrade-to-team-pro' };

const MB = 1024 * 1024;
const size = (n: number) => (n >= MB ? `${+(n / MB).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`);
const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });

function Feature({ ok, children }: { ok: boolean; children: string }) {
  return (
    <ListItem disableGutters dense>
      <ListItemIcon sx={{ minWidth: 32 }}>
        {ok ? <CheckIcon fontSize="small" color="success" aria-label="Included" /> : <CloseIcon fontSize="small" color="disabled" aria-label="Not included" />}
      </ListItemIcon>
      <ListItemText primary={children} />
    </ListItem>
  );
}

function status(state: BillingState): string {
  const label = state.plans.find((p) => p.plan === state.plan)?.label ?? state.plan;
  const end = state.subscription_end_date ? day(state.subscription_end_date) : null;
  if (state.plan === 'free')
    return state.subscription_status === 'trialing' && end ? `${label}, until ${end}.` : `${label}: ${state.subscription_status.replace(/_/g, ' ')}.`;
  if (state.subscription_status === 'past_due') return `${label}: the last payment failed. Stripe retries it; update your card under Manage billing.`;
  if (state.cancel_at_period_end && end) return `${label}, cancelled: it ends on ${end}.`;
  return end ? `${label}, renews on ${end}.` : `${label}.`;
}

type Load = () => Promise<BillingState>;

/** Back from Stripe Checkout: the plan changes when Stripe's webhook arrives, usually within seconds. */
function useConfirmPlan(load: Load, refreshUser: () => Promise<void>) {
  const notify = useNotify();
  const [params, setParams] = useSearchParams();
  const [waitingFor, setWaitingFor] = useState<Plan | null>(null);

  useEffect(() => {
    const plan = params.get('plan') as Plan | null;
    if (plan && params.get('session_id')) setWaitingFor(plan);
    if (params.get('cancelled')) notify('Checkout was cancelled; nothing was charged.', { type: 'info', autoHideDuration: SUBSCRIPTION_MESSAGE_MS });
    if (plan || params.get('cancelled')) setParams({}, { replace: true });
  }, [params, setParams, notify]);

  useEffect(() => {
    if (!waitingFor) return;
    let tries = 0;
    const timer = setInterval(async () => {
      tries++;
      const s = await load().catch(() => null);
      if (s?.plan === waitingFor) {
        clearInterval(timer);
        setWaitingFor(null);
        notify(`Successfully upgraded to ${s.plans.find((p) => p.plan === waitingFor)?.label ?? waitingFor}.`, {
          type: 'success',
          autoHideDuration: SUBSCRIPTION_MESSAGE_MS,
        });
        await refreshUser();
      } else if (tries >= 60) {
        clearInterval(timer);
        setWaitingFor(null);
        notify('Failed to process subscription request', { type: 'error', autoHideDuration: SUBSCRIPTION_MESSAGE_MS });
      }
    }, 1000);
    return () => clearInterval(timer);
  }, [waitingFor, load, notify, refreshUser]);

  return { waitingFor, setWaitingFor };
}

/** The Owner's subscription actions: each one at a time (`busy`), each failure said for 5 s. */
function useSubscriptionActions(props: { load: Load; refreshUser: () => Promise<void>; setWaitingFor: (plan: Plan) => void; supportEmail?: string }) {
  const { load, refreshUser, setWaitingFor, supportEmail } = props;
  const notify = useNotify();
  const dataProvider = useFirewatchData();
  const [busy, setBusy] = useState(false);

  async function upgrade(entry: PlanEntry) {
    if (!storage.token) return notify('Authentication required to upgrade subscription', { type: 'error', autoHideDuration: SUBSCRIPTION_MESSAGE_MS });
    setBusy(true);
    try {
      const { data: answer } = await dataProvider.action<{ checkout_url?: string; status?: string; message?: string } | null>('stripe', {
        path: UPGRADE_PATH[entry.plan as Exclude<Plan, 'free'>],
      });
      if (answer?.checkout_url) return window.location.assign(answer.checkout_url);
      if (answer?.status === 'success') {
        // A paying organization's subscription changed price; the webhook confirms the plan.
        setWaitingFor(entry.plan);
        return;
      }
      notify('Unexpected response from server', { type: 'error', autoHideDuration: SUBSCRIPTION_MESSAGE_MS });
    } catch {
      notify(`Failed to process ${entry.label} subscription. Please try again.`, { type: 'error', autoHideDuration: SUBSCRIPTION_MESSAGE_MS });
    } finally {
      setBusy(false);
    }
  }

  async function cancel() {
    if (!storage.token) return notify('Authentication required to cancel subscription', { type: 'error', autoHideDuration: SUBSCRIPTION_MESSAGE_MS });
    setBusy(true);
    try {
      await dataProvider.action('stripe', { path: 'cancel-subscription' });
      notify('Subscription cancelled successfully.', { type: 'success', autoHideDuration: SUBSCRIPTION_MESSAGE_MS });
      await load();
      await refreshUser();
    } catch {
      notify(`Failed to cancel subscription. Please try again. If it keeps failing, write to ${supportEmail ?? 'support'}.`, {
        type: 'error',
        autoHideDuration: SUBSCRIPTION_MESSAGE_MS,
      });
    } finally {
      setBusy(false);
    }
  }

  async function portal() {
    setBusy(true);
    try {
      const { data } = await dataProvider.action<{ url: string }>('stripe', { path: 'portal' });
      window.location.assign(data.url);
    } catch {
      notify('Failed to process subscription request', { type: 'error', autoHideDuration: SUBSCRIPTION_MESSAGE_MS });
      setBusy(false);
    }
  }

  return { busy, upgrade, cancel, portal };
}

/** One plan, side by side with the others: what it includes, and its upgrade button when it is paid. */
function PlanCard({ entry, current, disabled, onUpgrade }: { entry: PlanEntry; current: boolean; disabled: boolean; onUpgrade: () => void }) {
  return (
    <Grid size={{ xs: 12, md: 4 }}>
      <Card
        variant="outlined"
        sx={{ height: '100%', display: 'flex', flexDirection: 'column', borderColor: current ? 'primary.main' : undefined }}
        aria-label={entry.label}
        role="region"
      >
        <CardHeader
          title={entry.label}
          titleTypographyProps={{ component: 'h2', variant: 'h6' }}
          action={current ? <Chip size="small" color="primary" label="Current plan" /> : null}
        />
        <CardContent sx={{ flexGrow: 1 }}>
          <List dense disablePadding>
            <Feature ok>{`${entry.messages_per_day.toLocaleString()} AI questions a day per person`}</Feature>
            <Feature ok>{`Files up to ${size(entry.max_file_bytes)}, ${entry.files_per_project.toLocaleString()} per project`}</Feature>
            <Feature ok={entry.custom_settings}>Organization banner</Feature>
            <Feature ok={entry.custom_settings}>Story curve logging</Feature>
          </List>
        </CardContent>
        {entry.paid ? (
          <CardActions>
            <Button variant="contained" disabled={disabled} onClick={onUpgrade}>
              {`Upgrade to ${entry.label}`}
            </Button>
          </CardActions>
        ) : null}
      </Card>
    </Grid>
  );
}

/** The `upgrade` screen (spec §2): the plans side by side, and the Owner's subscription actions. */
export function UpgradePage() {
  const notify = useNotify();
  const refresh = useRefresh();
  const dataProvider = useFirewatchData();
  const { refetch: refetchIdentity } = useGetIdentity();
  const { permissions } = usePermissions<string>();
  const [state, setState] = useState<BillingState | null>(null);

  // Read imperatively: the wait for Stripe's webhook polls it, and each action reads it again.
  const load = useCallback(() => dataProvider.view<BillingState>('billing', {}).then(({ data: s }) => (setState(s), s)), [dataProvider]);
  /** The plan changed (or may have): the toolbar, the organization list and the identity read it. */
  const refreshUser = useCallback(async () => {
    forgetCurrentUser();
    await refetchIdentity();
    refresh();
  }, [refetchIdentity, refresh]);

  useEffect(() => {
    void load().catch((e: Error) => notify(e.message, { type: 'error' }));
  }, [load, notify]);

  const { waitingFor, setWaitingFor } = useConfirmPlan(load, refreshUser);
  const { busy, upgrade, cancel, portal } = useSubscriptionActions({ load, refreshUser, setWaitingFor, supportEmail: state?.support_email });

  const owner = permissions === 'Owner';
  const paid = !!state && state.plan !== 'free';
  return (
    <Box sx={{ mt: 2 }}>
      <Title title="Upgrade" />
      {state ? (
        <>
          <Typography variant="body1" sx={{ mb: 2 }} data-testid="current-plan">
            Current plan: {status(state)}
          </Typography>
          {!state.enabled ? (
            <Alert severity="info" sx={{ mb: 2 }}>
              Payments are not set up on this server: the organization keeps its plan.
            </Alert>
          ) : null}
          {state.enabled && !owner ? (
            <Alert severity="info" sx={{ mb: 2 }}>
              Only the organization's Owner changes its subscription.
            </Alert>
          ) : null}
          {waitingFor ? (
            <Alert severity="info" sx={{ mb: 2 }} role="status">
              Confirming your payment with Stripe…
            </Alert>
          ) : null}
          <Grid container spacing={2}>
            {state.plans.map((entry) => (
              <PlanCard
                key={entry.plan}
                entry={entry}
                current={entry.plan === state.plan}
                disabled={entry.plan === state.plan || busy || !state.enabled || !owner || !!waitingFor}
                onUpgrade={() => void upgrade(entry)}
              />
            ))}
          </Grid>
          {state.enabled && owner && paid ? (
            <Box sx={{ mt: 2, display: 'flex', gap: 1 }}>
              <Button variant="outlined" disabled={busy} onClick={() => void portal()}>
                Manage billing
              </Button>
              {!state.cancel_at_period_end && state.subscription_status !== 'canceled' ? (
                <Button variant="outlined" color="error" disabled={busy} onClick={() => void cancel()}>
                  Cancel subscription
                </Button>
              ) : null}
            </Box>
          ) : null}
        </>
      ) : null}
    </Box>
  );
}
