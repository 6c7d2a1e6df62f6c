import { Suspense, type ReactElement } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useParams } from 'react-router-dom';
import { Admin, CustomRoutes, Resource } from 'react-admin';
import { AppLayout } from './shell/Layout.js';
import { Notification } from './shell/Notification.js';
import { IntoOrganization, OrganizationGuard } from './shell/OrganizationGuard.js';
import { SignedOutUnknown } from './shell/KnownAddress.js';
import { shellStore } from './shell/store.js';
import { SPEC_ROUTE_ALIASES } from './core/specRoutes.js';
import { OldSchoolSearch } from './search/OldSchoolSearch.js';
import { SearchResults } from './search/SearchResults.js';
import { addResourceAliases, loadMeta } from './core/meta.js';
import { documentAliases } from './catalog/documents.js';
import { organization, storage } from './core/org.js';
import { ChatPage } from './ai/ChatPage.js';
import { LandingPage } from './site/LandingPage.js';
import { Dashboard } from './dashboards/Dashboard.js';
import { Dashboards } from './dashboards/Dashboards.js';
import { IncidentView } from './incidents/IncidentView.js';
import { CaseView } from './cases/CaseView.js';
import { ReportPage } from './incidents/ReportPage.js';
import { DocumentReader } from './documents/DocumentReader.js';
import { StatusBoard } from './incidents/StatusBoard.js';
import { SourcePage } from './catalog/SourcePage.js';
import { UpgradePage } from './billing/UpgradePage.js';
import { LoginPage } from './accounts/LoginPage.js';
import { PostOAuthLoginPage } from './accounts/PostOAuthLoginPage.js';
import { authProvider, currentUser, LOGIN_PATH } from './core/authProvider.js';
import { dataProvider } from './core/dataProvider.js';
import { i18nProvider } from './core/i18n.js';
import { screensFor } from './overrides.js';
import { mayRead, mayWrite } from './core/rights.js';
import { darkTheme, lightTheme } from './core/theme.js';
import { ChunkBoundary, lazyNamed } from './site/lazy.js';
import { NotFoundContent } from './site/NotFound.js';
import { OrganizationSettings } from './accounts/OrganizationSettings.js';
import { ContentManager } from './site/ContentManager.js';
import { OncallPage } from './oncall/OncallPage.js';
import { SlackSetup } from './slack/SlackSetup.js';

addResourceAliases(documentAliases);

// The public pages load on demand (visitors of the app never fetch them), within spec §8's 120 s.
const loadPublic = () => import('./site/PublicPages.js');
const NotFoundPage = lazyNamed(loadPublic, 'NotFoundPage');
const ServerErrorPage = lazyNamed(loadPublic, 'ServerErrorPage');
const DocumentPage = lazyNamed(loadPublic, 'DocumentPage');
const BlogPage = lazyNamed(loadPublic, 'BlogPage');

/** Spec §2's public pages, at their own addresses and under the organization's. */
const PUBLIC_ROUTES: [string, () => ReactElement][] = [
  ['404', () => <NotFoundPage />],
  ['500', () => <ServerErrorPage />],
  ['legal/terms-of-service', () => <DocumentPage kind="terms" />],
  ['legal/privacy-policy', () => <DocumentPage kind="privacy" />],
  ['help/faq', () => <DocumentPage kind="faq" />],
  ['blog/:id?', () => <BlogPage />],
];

/** A public page, loaded on demand. */
const publicPage = (page: () => ReactElement) => (
  <ChunkBoundary>
    <Suspense fallback={null}>{page()}</Suspense>
  </ChunkBoundary>
);

const store = shellStore();

/**
 * The screens come from the server's resource metadata, fetched once signed in: adding an entity
 * on the server (one definition) adds its list, create and edit screens here.
 */
async function resources() {
  // Called again once signed in (permissions change); before that there is nothing to describe.
  if (!storage.token) return [];
  const [metas, me] = await Promise.all([loadMeta(), currentUser()]);
  return (
    metas
      // A resource the role may not read (API keys, below Admin) gets no screens and no menu entry.
      .filter((m) => m.routes.list && mayRead(me.role, m))
      .map((m) => {
        const screens = screensFor(m.name);
        // Only the screens the caller's role may use (a Member gets no /apikeys/create, nor the empty list's Create).
        return (
          <Resource
            key={m.name}
            name={m.name}
            list={screens.list}
            create={m.routes.create && mayWrite(me.role, m) ? screens.create : undefined}
            edit={m.routes.update && mayWrite(me.role, m, 'update') ? screens.edit : undefined}
            recordRepresentation={m.recordRepresentation}
            // Polyglot picks the singular or plural side of "Tag |||| Tags".
            options={{ label: `${m.label} |||| ${m.labelPlural}`, menuLabel: screens.menuLabel ?? m.labelPlural }}
          />
        );
      })
  );
}

/** react-admin under /{organization}/ in a browser (not hash) router; anything else goes to the organization's root. */
export function App() {
  return (
    <BrowserRouter>
      <OrganizationGuard />
      <Routes>
        {/* Public: visitors chat without a login (outside react-admin's sign-in check). */}
        <Route path={`/${organization}/landing`} element={<LandingPage />} />
        <Route path={`/${organization}/auth/post-oauth-login`} element={<PostOAuthLoginPage />} />
        {PUBLIC_ROUTES.flatMap(([path, page]) => [`/${path}`, `/${organization}/${path}`].map((at) => <Route key={at} path={at} element={publicPage(page)} />))}
        <Route
          path={`/${organization}/*`}
          element={
            <SignedOutUnknown
              notFound={publicPage(() => (
                <NotFoundPage />
              ))}
            >
              <FirewatchAdmin />
            </SignedOutUnknown>
          }
        />
        {/* An empty path goes to chat (spec). */}
        <Route path={`/${organization}`} element={<Navigate to={`/${organization}/chat`} replace />} />
        <Route path="*" element={<IntoOrganization />} />
      </Routes>
    </BrowserRouter>
  );
}

/** A spec §2 address: on to the screen it names, with the rest of the path (an id, a tab). */
function SpecRedirect({ to }: { to: string }) {
  const rest = useParams()['*'];
  return <Navigate to={`/${organization}/${to}${rest ? `/${rest}` : ''}`} replace />;
}

function FirewatchAdmin() {
  return (
    <Admin
      basename={`/${organization}`}
      title="Firewatch"
      dataProvider={dataProvider}
      authProvider={authProvider}
      i18nProvider={i18nProvider}
      layout={AppLayout}
      notification={Notification}
      store={store}
      loginPage={false}
      requireAuth
      lightTheme={lightTheme}
      darkTheme={darkTheme}
      disableTelemetry
      catchAll={NotFoundContent}
    >
      <CustomRoutes noLayout>
        <Route path={LOGIN_PATH} element={<LoginPage />} />
      </CustomRoutes>
      <CustomRoutes>
        <Route path="/chat" element={<ChatPage />} />
      </CustomRoutes>
      <CustomRoutes>
        <Route path="iaos/:name/view" element={<IncidentView />} />
        <Route path="cases/:name/view" element={<CaseView />} />
        <Route path="search/results" element={<SearchResults />} />
        <Route path="oncall" element={<OncallPage />} />
        <Route path="iaos/old_school_search" element={<OldSchoolSearch />} />
        <Route path="iaos/status" element={<StatusBoard key="iaos" resource="iaos" />} />
        <Route path="cases/status" element={<StatusBoard key="cases" resource="cases" />} />
        <Route path="iaos/report" element={<ReportPage key="iaos" resource="iaos" />} />
        <Route path="cases/report" element={<ReportPage key="cases" resource="cases" />} />
        <Route path="data/sources/:name/:tab" element={<SourcePage />} />
        <Route path="overview" element={<Dashboard />} />
        <Route path="upgrade" element={<UpgradePage />} />
        <Route path="admin/settings" element={<OrganizationSettings />} />
        <Route path="admin/content_manager" element={<ContentManager />} />
        <Route path="admin/slack" element={<SlackSetup />} />
        <Route path="dashboards" element={<Dashboards />} />
        <Route path="documents/:id/read" element={<DocumentReader />} />
        <Route path="dashboards/:kind" element={<Dashboards />} />
        {Object.entries(SPEC_ROUTE_ALIASES).map(([from, to]) => (
          <Route key={from} path={`${from}/*`} element={<SpecRedirect to={to} />} />
        ))}
      </CustomRoutes>
      {resources}
    </Admin>
  );
}
