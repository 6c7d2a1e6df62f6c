import type { ReactElement } from 'react';
import PhoneInTalkIcon from '@mui/icons-material/PhoneInTalk';
import AccountTreeIcon from '@mui/icons-material/AccountTree';
import ArticleIcon from '@mui/icons-material/Article';
import SearchIcon from '@mui/icons-material/Search';
import AssignmentIcon from '@mui/icons-material/Assignment';
import BusinessIcon from '@mui/icons-material/Business';
import ChatIcon from '@mui/icons-material/Chat';
import CommitIcon from '@mui/icons-material/Commit';
import ContactsIcon from '@mui/icons-material/Contacts';
import DashboardIcon from '@mui/icons-material/Dashboard';
import DescriptionIcon from '@mui/icons-material/Description';
import EditNoteIcon from '@mui/icons-material/EditNote';
import ExtensionIcon from '@mui/icons-material/Extension';
import FeedbackIcon from '@mui/icons-material/Feedback';
import ForumIcon from '@mui/icons-material/Forum';
import FolderIcon from '@mui/icons-material/Folder';
import HandshakeIcon from '@mui/icons-material/Handshake';
import HomeIcon from '@mui/icons-material/Home';
import InsightsIcon from '@mui/icons-material/Insights';
import KeyIcon from '@mui/icons-material/Key';
import LinkIcon from '@mui/icons-material/Link';
import ListAltIcon from '@mui/icons-material/ListAlt';
import MenuBookIcon from '@mui/icons-material/MenuBook';
import MoreHorizIcon from '@mui/icons-material/MoreHoriz';
import PeopleIcon from '@mui/icons-material/People';
import QueryStatsIcon from '@mui/icons-material/QueryStats';
import ReportProblemIcon from '@mui/icons-material/ReportProblem';
import RuleIcon from '@mui/icons-material/Rule';
import SensorsIcon from '@mui/icons-material/Sensors';
import SettingsIcon from '@mui/icons-material/Settings';
import StorageIcon from '@mui/icons-material/Storage';
import TerminalIcon from '@mui/icons-material/Terminal';
import ThumbUpIcon from '@mui/icons-material/ThumbUp';
import TaskAltIcon from '@mui/icons-material/TaskAlt';
import WorkIcon from '@mui/icons-material/Work';
import WorkHistoryIcon from '@mui/icons-material/WorkHistory';
import type { MenuGroup } from './groups.js';

/** Each entry of the menu pane its own icon, so the minimized drawer (the default) can be read at a glance. */
const ENTRY_ICONS: Record<string, () => ReactElement> = {
  '/chat': () => <ChatIcon />,
  iaos: () => <ReportProblemIcon />,
  cases: () => <WorkIcon />,
  signals: () => <SensorsIcon />,
  tasks: () => <TaskAltIcon />,
  '/dashboards': () => <InsightsIcon />,
  '/oncall': () => <PhoneInTalkIcon />,
  '/search/results': () => <SearchIcon />,
  documents: () => <ArticleIcon />,
  'oncall/handoffs': () => <HandshakeIcon />,
  'oncall/preshift_preps': () => <WorkHistoryIcon />,
  '/overview': () => <HomeIcon />,
  commits: () => <CommitIcon />,
  forms: () => <AssignmentIcon />,
  feedback: () => <FeedbackIcon />,
  servicefeedback: () => <ThumbUpIcon />,
  'data/sources': () => <StorageIcon />,
  'data/queries': () => <QueryStatsIcon />,
  'data/commands': () => <TerminalIcon />,
  weblinks: () => <LinkIcon />,
  bestpractices: () => <RuleIcon />,
  '/admin/settings': () => <SettingsIcon />,
  '/admin/content_manager': () => <EditNoteIcon />,
  '/admin/slack': () => <ForumIcon />,
  'site/pages': () => <DescriptionIcon />,
  organizations: () => <BusinessIcon />,
  projects: () => <FolderIcon />,
  users: () => <PeopleIcon />,
  apikeys: () => <KeyIcon />,
};

/** Settings entries share their group's icon (the group's heading names them when the drawer is open). */
const GROUP_ICONS: Record<MenuGroup['key'], () => ReactElement> = {
  menu: () => <ReportProblemIcon />,
  work: () => <DashboardIcon />,
  data_catalog: () => <StorageIcon />,
  administration: () => <SettingsIcon />,
  organization: () => <BusinessIcon />,
  general: () => <ExtensionIcon />,
  incident: () => <ReportProblemIcon />,
  case: () => <WorkIcon />,
  signal: () => <SensorsIcon />,
  contact: () => <ContactsIcon />,
  oncall: () => <PhoneInTalkIcon />,
  documentation: () => <DescriptionIcon />,
  knowledge: () => <MenuBookIcon />,
  data: () => <AccountTreeIcon />,
  other: () => <MoreHorizIcon />,
};

export function iconFor(entry: string, group: MenuGroup): ReactElement {
  return (ENTRY_ICONS[entry] ?? GROUP_ICONS[group.key] ?? (() => <ListAltIcon />))();
}
