import { useState, type ReactElement } from 'react';
import { IconButton, ListItemIcon, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import AppsIcon from '@mui/icons-material/Apps';
import CalendarMonthIcon from '@mui/icons-material/CalendarMonth';
import EmailIcon from '@mui/icons-material/Email';
import ForumIcon from '@mui/icons-material/Forum';
import PhoneIcon from '@mui/icons-material/Phone';
import SupportAgentIcon from '@mui/icons-material/SupportAgent';
import AddToQueueIcon from '@mui/icons-material/AddToQueue';
import { useSite, type SiteSettings } from './site.js';

interface Link {
  label: string;
  href: string;
  icon: ReactElement;
}

/** The contact menu's entries (spec §2: e-mail, phone, Slack, book a demo), those the organization configured. */
export function contactLinks(s: SiteSettings): Link[] {
  return [
    s.contact_email ? { label: `E-mail ${s.contact_email}`, href: `mailto:${s.contact_email}`, icon: <EmailIcon fontSize="small" /> } : null,
    s.contact_phone ? { label: `Call ${s.contact_phone}`, href: `tel:${s.contact_phone.replace(/[^+0-9]/g, '')}`, icon: <PhoneIcon fontSize="small" /> } : null,
    s.slack_url ? { label: 'Talk to us on Slack', href: s.slack_url, icon: <ForumIcon fontSize="small" /> } : null,
    s.demo_url ? { label: 'Book a demo', href: s.demo_url, icon: <CalendarMonthIcon fontSize="small" /> } : null,
    s.slack_install_url ? { label: 'Add to Slack', href: s.slack_install_url, icon: <AddToQueueIcon fontSize="small" /> } : null,
  ].filter((l): l is Link => !!l);
}

/** The sibling products the toolbar links to (spec §1: on-call, DFIR and SOC, status page). */
export function appLinks(s: SiteSettings): Link[] {
  return [
    s.oncall_url ? { label: 'On-call', href: s.oncall_url, icon: <SupportAgentIcon fontSize="small" /> } : null,
    s.dfir_url ? { label: 'DFIR and SOC', href: s.dfir_url, icon: <AppsIcon fontSize="small" /> } : null,
    s.status_page_url ? { label: 'Status page', href: s.status_page_url, icon: <AppsIcon fontSize="small" /> } : null,
  ].filter((l): l is Link => !!l);
}

function LinkMenu({ id, label, icon, links }: { id: string; label: string; icon: ReactElement; links: Link[] }) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  if (!links.length) return null;
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          color="inherit"
          aria-label={label}
          aria-haspopup="menu"
          aria-controls={anchor ? id : undefined}
          aria-expanded={!!anchor}
          onClick={(e) => setAnchor(e.currentTarget)}
        >
          {icon}
        </IconButton>
      </Tooltip>
      <Menu id={id} anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {links.map((l) => (
          <MenuItem
            key={l.href}
            component="a"
            href={l.href}
            target={l.href.startsWith('http') ? '_blank' : undefined}
            rel="noopener noreferrer"
            onClick={() => setAnchor(null)}
          >
            <ListItemIcon>{l.icon}</ListItemIcon>
            <ListItemText primary={l.label} />
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

/** The toolbar's sibling-product links and contact menu, as the organization configured them (nothing when it did not). */
export function SiteLinks() {
  const { site } = useSite();
  if (!site) return null;
  return (
    <>
      <LinkMenu id="app-links-menu" label="Other products" icon={<AppsIcon />} links={appLinks(site.settings)} />
      <LinkMenu id="contact-menu" label="Contact us" icon={<SupportAgentIcon />} links={contactLinks(site.settings)} />
    </>
  );
}
