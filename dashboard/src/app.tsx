import { useEffect, useRef, useState } from 'preact/hooks';
import { answer, api, ApiError } from './api/client.ts';
import { CallerContext, type Caller } from './caller.ts';
import { ErrorNotice, Loading } from './components/states.tsx';
import { interceptLinks, match, navigate, useLocation } from './router.ts';
import { forgetKey, keepKey, keyFromFragment, storedKey } from './session.ts';
import { Overview } from './views/overview.tsx';
import { PaymentList } from './views/payments.tsx';
import { PaymentPage } from './views/payment.tsx';
import { SignIn } from './views/sign-in.tsx';
import { CustomerList } from './views/customers.tsx';
import { CustomerPage } from './views/customer.tsx';
import { CampaignList } from './views/campaigns.tsx';
import { CampaignPage } from './views/campaign.tsx';
import { EditCampaign, NewCampaign } from './views/campaign-form.tsx';
import { CancelFlows } from './views/cancel-flows.tsx';
import { Developers } from './views/developers.tsx';

type Session = { state: 'signed-out'; error?: ApiError } | { state: 'checking' } | { state: 'signed-in'; caller: Caller };

/** Asks the API who the key is (GET /v1/auth/me): its merchant, environment and scopes drive the whole app. */
async function whoIs(key: string): Promise<Caller> {
  keepKey(key);
  try {
    return (await answer(api.GET('/v1/auth/me'))).data;
  } catch (error) {
    forgetKey();
    throw error;
  }
}

export function App() {
  // Read once: the fragment is taken out of the address bar as it is read.
  const [initialKey] = useState(() => keyFromFragment() ?? storedKey());
  const [session, setSession] = useState<Session>(initialKey ? { state: 'checking' } : { state: 'signed-out' });

  const signIn = (key: string) => {
    setSession({ state: 'checking' });
    whoIs(key).then(
      (caller) => setSession({ state: 'signed-in', caller }),
      (error: ApiError) => setSession({ state: 'signed-out', error }),
    );
  };

  useEffect(() => {
    if (initialKey) signIn(initialKey);
  }, []);

  const signOut = () => {
    forgetKey();
    setSession({ state: 'signed-out' });
    navigate('/', { replace: true });
  };

  if (session.state === 'checking') return <Loading what="your account" />;
  if (session.state === 'signed-out') return <SignIn onSignIn={signIn} error={session.error} />;
  return (
    <CallerContext.Provider value={session.caller}>
      <Shell caller={session.caller} onSignOut={signOut} />
    </CallerContext.Provider>
  );
}

const SECTIONS = [
  { path: '/', label: 'Overview' },
  { path: '/payments', label: 'Payments' },
  { path: '/customers', label: 'Customers' },
  { path: '/campaigns', label: 'Campaigns' },
  { path: '/cancel-flows', label: 'Cancel flows' },
  { path: '/developers', label: 'Developers' },
] as const;

function Shell({ caller, onSignOut }: { caller: Caller; onSignOut: () => void }) {
  const location = useLocation();
  const current = SECTIONS.filter((section) => section.path === '/' ? location.path === '/' : location.path.startsWith(section.path)).at(-1);
  useEffect(() => {
    document.title = `${current?.label ?? 'Not found'} · Recovery dashboard${caller.environment === 'test' ? ' (test mode)' : ''}`;
  }, [current, caller.environment]);
  // After a navigation, focus moves to the new content, as a page load would put a screen reader there.
  const firstPath = useRef(location.path);
  useEffect(() => {
    if (location.path !== firstPath.current) document.getElementById('main')?.focus();
    firstPath.current = '';
  }, [location.path]);
  return (
    <div class="shell" onClick={interceptLinks}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <ModeBanner caller={caller} />
      <header class="top">
        <span class="brand">Recovery</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li>
                <a href={`/dashboard${section.path === '/' ? '/' : section.path}`} aria-current={section === current ? 'page' : undefined}>
                  {section.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="muted" title={caller.merchant_id}>
            {caller.scopes.join(', ')} key
          </span>
          <button type="button" class="secondary" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <View path={location.path} query={location.query} />
      </main>
    </div>
  );
}

/** Test or live, from the key's environment: always on screen, never dismissable. */
function ModeBanner({ caller }: { caller: Caller }) {
  if (caller.environment === 'test') {
    return (
      <div class="mode-banner test" role="note">
        Test mode: you are viewing test data. Switch by signing in with a live key (svc_live_…).
      </div>
    );
  }
  return (
    <div class="mode-banner live" role="note">
      Live mode: real customers and payments.
    </div>
  );
}

function View({ path, query }: { path: string; query: URLSearchParams }) {
  let params: Record<string, string> | null;
  if (path === '/' || path === '') return <Overview query={query} />;
  if (match('/payments', path)) return <PaymentList query={query} />;
  if ((params = match('/payments/:id', path))) return <PaymentPage id={params.id!} />;
  if (match('/customers', path)) return <CustomerList query={query} />;
  if ((params = match('/customers/:id', path))) return <CustomerPage id={params.id!} />;
  if (match('/campaigns', path)) return <CampaignList query={query} />;
  if (match('/campaigns/new', path)) return <NewCampaign />;
  if ((params = match('/campaigns/:id/edit', path))) return <EditCampaign id={params.id!} />;
  if ((params = match('/campaigns/:id', path))) return <CampaignPage id={params.id!} query={query} />;
  if (match('/cancel-flows', path)) return <CancelFlows query={query} />;
  if (match('/developers', path)) return <Developers />;
  return <NotFound />;
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <ErrorNotice error={new ApiError('There is no dashboard page at this address.', 404, 'resource_not_found', null, null)} />
      <p>
        <a href="/dashboard/">Go to the overview</a>
      </p>
    </section>
  );
}
