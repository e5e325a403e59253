/** Sign up and sign in with an e-mail address and a password (the account's browser session). */
import { useState } from 'preact/hooks';
import { request } from '../client.ts';
import { errorText } from '../format.ts';
import { SignIn, SignUp } from '../operations.ts';
import { navigate, onLinkClick } from '../router.ts';
import { useSession } from '../session.ts';

const MIN_PASSWORD = 10;

export function AuthPage({ mode }: { mode: 'signUp' | 'signIn' }) {
  const { setMe } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const signingUp = mode === 'signUp';

  const submit = async (event: Event) => {
    event.preventDefault();
    setError('');
    if (signingUp && password.length < MIN_PASSWORD)
      return setError(`Choose a password of at least ${MIN_PASSWORD} characters.`);
    setBusy(true);
    try {
      const me = signingUp
        ? (await request(SignUp, { email, password })).signUp
        : (await request(SignIn, { email, password })).signIn;
      setMe(me);
      navigate(signingUp ? '/account?welcome=1' : '/convert');
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="narrow">
      <h1>{signingUp ? 'Create your account' : 'Sign in'}</h1>
      <p class="lead">
        {signingUp
          ? 'Convert files in the browser and get API keys. The Free plan includes 250 credits a month.'
          : 'Welcome back. Sign in to convert files and manage your API keys.'}
      </p>
      <form onSubmit={submit} class="card" noValidate>
        <div class="field">
          <label for="email">E-mail address</label>
          <input
            id="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete={signingUp ? 'new-password' : 'current-password'}
            required
            minLength={signingUp ? MIN_PASSWORD : undefined}
            aria-describedby={signingUp ? 'password-hint' : undefined}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          {signingUp ? (
            <p class="hint" id="password-hint">
              At least {MIN_PASSWORD} characters.
            </p>
          ) : null}
        </div>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Please wait…' : signingUp ? 'Sign up' : 'Sign in'}
        </button>
      </form>
      <p>
        {signingUp ? 'Already have an account? ' : 'New here? '}
        <a href={signingUp ? '/signin' : '/signup'} onClick={onLinkClick}>
          {signingUp ? 'Sign in' : 'Create an account'}
        </a>
      </p>
    </section>
  );
}
