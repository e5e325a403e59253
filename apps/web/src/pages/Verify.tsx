/** The page the verification mail links to: /verify?token=… confirms the address once. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { errorText } from '../format.ts';
import { VerifyEmail } from '../operations.ts';
import { onLinkClick } from '../router.ts';
import { useSession } from '../session.ts';

export function VerifyPage() {
  const { me, refresh } = useSession();
  const [state, setState] = useState<{ status: 'working' | 'done' | 'failed'; message?: string }>({
    status: 'working',
  });
  const sent = useRef(false);

  useEffect(() => {
    // Once per page load: the token is single-use, so a second send would report it used.
    if (sent.current) return;
    sent.current = true;
    const token = new URLSearchParams(location.search).get('token');
    if (!token)
      return setState({
        status: 'failed',
        message: 'This link has no token. Open the link from the e-mail exactly as it was sent.',
      });
    request(VerifyEmail, { token }).then(
      async () => {
        // The token has done its job: keep it out of the address bar and the history.
        history.replaceState(null, '', '/verify');
        // The link may be opened in another browser than the one signed in: ask who this is.
        await refresh();
        setState({ status: 'done' });
      },
      (error) => setState({ status: 'failed', message: errorText(error) }),
    );
  }, [refresh]);

  return (
    <section class="narrow">
      <h1>Verify your e-mail</h1>
      {state.status === 'working' ? <p aria-live="polite">Checking your link…</p> : null}
      {state.status === 'done' ? (
        <div class="notice success" role="status">
          <p>Your e-mail address is verified. You can now generate API keys.</p>
          <p>
            {me ? (
              <a href="/account" onClick={onLinkClick}>
                Go to your account
              </a>
            ) : (
              <a href="/signin" onClick={onLinkClick}>
                Sign in to continue
              </a>
            )}
          </p>
        </div>
      ) : null}
      {state.status === 'failed' ? (
        <div class="notice error" role="alert">
          <p>{state.message}</p>
          <p>
            {me ? (
              <a href="/account" onClick={onLinkClick}>
                Send a new link from your account
              </a>
            ) : (
              <a href="/signin" onClick={onLinkClick}>
                Sign in to send a new link
              </a>
            )}
          </p>
        </div>
      ) : null}
    </section>
  );
}
