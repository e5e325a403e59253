import { type JSX, render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, request } from './client.ts';
import { errorText } from './format.ts';
import { MeQuery, SignOut } from './operations.ts';
import { AccountPage } from './pages/Account.tsx';
import { AuthPage } from './pages/Auth.tsx';
import { ConvertPage } from './pages/Convert.tsx';
import { VerifyPage } from './pages/Verify.tsx';
import { navigate, onLinkClick, usePath } from './router.ts';
import { SessionContext, type Me } from './session.ts';
import './styles.css';

const TITLES: Record<string, string> = {
  '/convert': 'Convert',
  '/account': 'Account',
  '/signin': 'Sign in',
  '/signup': 'Sign up',
  '/verify': 'Verify your e-mail',
};

function App() {
  const path = usePath();
  const [me, setMe] = useState<Me | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [loadError, setLoadError] = useState('');

  const refresh = useCallback(async () => {
    try {
      setMe((await request(MeQuery)).me ?? null);
      setLoadError('');
    } catch (error) {
      // Signed out is not a failure: the sign-in page follows.
      setMe(null);
      setLoadError(error instanceof ApiError && error.code === 'UNAUTHENTICATED' ? '' : errorText(error));
    } finally {
      setLoaded(true);
    }
  }, []);
  useEffect(() => void refresh(), [refresh]);

  const signedIn = me !== null;
  // Pages that need an account send a visitor to sign in; the verify link works either way.
  const page = path === '/' ? (signedIn ? '/convert' : '/signin') : path;
  useEffect(() => {
    if (!loaded) return;
    if (!signedIn && (page === '/convert' || page === '/account')) navigate('/signin', { replace: true });
    else if (path === '/') navigate(page, { replace: true });
  }, [loaded, signedIn, page, path]);
  const firstPage = useRef(true);
  useEffect(() => {
    document.title = `${TITLES[page] ?? 'Transmute'} · Transmute`;
    // After an in-app navigation, keyboard and screen-reader users start at the new content.
    if (firstPage.current) firstPage.current = false;
    else document.getElementById('main')?.focus();
  }, [page]);

  const signOut = async () => {
    try {
      await request(SignOut);
    } finally {
      setMe(null);
      navigate('/signin');
    }
  };

  let content: JSX.Element;
  if (!loaded) content = <p aria-live="polite">Loading…</p>;
  else if (page === '/signin' || page === '/signup')
    content = <AuthPage mode={page === '/signup' ? 'signUp' : 'signIn'} />;
  else if (page === '/verify') content = <VerifyPage />;
  else if (page === '/account' && signedIn) content = <AccountPage />;
  else if (page === '/convert' && signedIn) content = <ConvertPage />;
  else if (!signedIn) content = <p>Redirecting to sign in…</p>;
  else content = <NotFound />;

  return (
    <SessionContext.Provider value={{ me, setMe, refresh }}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/" onClick={onLinkClick}>
          Transmute
        </a>
        <nav aria-label="Main">
          {signedIn ? (
            <>
              <a href="/convert" onClick={onLinkClick} aria-current={page === '/convert' ? 'page' : undefined}>
                Convert
              </a>
              <a href="/account" onClick={onLinkClick} aria-current={page === '/account' ? 'page' : undefined}>
                Account
              </a>
              <button type="button" class="link" onClick={signOut}>
                Sign out
              </button>
            </>
          ) : (
            <>
              <a href="/signin" onClick={onLinkClick} aria-current={page === '/signin' ? 'page' : undefined}>
                Sign in
              </a>
              <a href="/signup" onClick={onLinkClick} aria-current={page === '/signup' ? 'page' : undefined}>
                Sign up
              </a>
            </>
          )}
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {loadError ? (
          <p class="notice error" role="alert">
            {loadError}
          </p>
        ) : null}
        {content}
      </main>
    </SessionContext.Provider>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        <a href="/" onClick={onLinkClick}>
          Go to the start page
        </a>
      </p>
    </section>
  );
}

render(<App />, document.getElementById('app')!);
