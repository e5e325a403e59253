/** The account panel: plan and credits, overage, API keys, history and signed URLs. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { request } from '../client.ts';
import { copyText, errorText, formatDate, formatDay } from '../format.ts';
import type { ResultOf } from '../graphql.ts';
import {
  AccountQuery,
  CreateApiKey,
  CreateSignedUrl,
  HistoryQuery,
  ResendVerification,
  RevokeApiKey,
  SetOverage,
} from '../operations.ts';
import { useSession } from '../session.ts';

type Account = ResultOf<typeof AccountQuery>;
type Credits = NonNullable<Account['credits']>;
type ApiKey = Account['apiKeys'][number];
type History = NonNullable<Account['history']>;

const PAGE_SIZE = 10;

export function AccountPage() {
  const { me } = useSession();
  const [account, setAccount] = useState<Account | null>(null);
  const [error, setError] = useState('');
  const welcome = new URLSearchParams(location.search).has('welcome');

  const load = useCallback(async () => {
    try {
      setAccount(await request(AccountQuery, { limit: PAGE_SIZE, offset: 0 }));
    } catch (failure) {
      setError(errorText(failure));
    }
  }, []);
  useEffect(() => void load(), [load]);

  if (!me) return null;
  return (
    <section>
      <h1>Your account</h1>
      <p class="lead">
        Signed in as <strong>{me.email ?? me.id}</strong>
        {me.emailVerified ? <span class="badge ok">verified</span> : <span class="badge warn">not verified</span>}
      </p>
      {welcome && !me.emailVerified ? (
        <p class="notice success" role="status">
          Welcome! We sent a verification link to {me.email}.
        </p>
      ) : null}
      {me.emailVerified ? null : <VerifyNotice email={me.email} />}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {account ? (
        <div class="panels">
          {account.credits ? (
            <CreditsPanel
              credits={account.credits}
              overageAvailable={me.overageAvailable}
              onChange={(credits) => setAccount({ ...account, credits })}
            />
          ) : null}
          <KeysPanel keys={account.apiKeys} onChange={(apiKeys) => setAccount({ ...account, apiKeys })} />
          {account.history ? <HistoryPanel first={account.history} signedUrls={me.signedUrlsAvailable} /> : null}
        </div>
      ) : error ? null : (
        <p aria-live="polite">Loading your account…</p>
      )}
    </section>
  );
}

function VerifyNotice({ email }: { email: string | null }) {
  const [state, setState] = useState<{ sending: boolean; message?: string; failed?: boolean }>({ sending: false });
  const resend = async () => {
    setState({ sending: true });
    try {
      await request(ResendVerification);
      setState({ sending: false, message: `A new link is on its way to ${email ?? 'your address'}.` });
    } catch (failure) {
      setState({ sending: false, message: errorText(failure), failed: true });
    }
  };
  return (
    <div class="notice warn" role="status" id="verify-notice">
      <p>
        <strong>Your e-mail address is not verified yet.</strong> Open the link we sent to {email ?? 'your address'} to
        verify it. Until then you can convert files here, but you cannot generate API keys.
      </p>
      <button type="button" onClick={resend} disabled={state.sending}>
        {state.sending ? 'Sending…' : 'Resend the e-mail'}
      </button>
      {state.message ? (
        <p class={state.failed ? 'error' : 'hint'} role={state.failed ? 'alert' : 'status'}>
          {state.message}
        </p>
      ) : null}
    </div>
  );
}

function CreditsPanel({
  credits,
  overageAvailable,
  onChange,
}: {
  credits: Credits;
  overageAvailable: boolean;
  onChange(credits: Credits): void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const share =
    credits.creditsIncluded > 0 ? Math.min(100, Math.round((credits.creditsUsed / credits.creditsIncluded) * 100)) : 0;
  const toggle = async (enabled: boolean) => {
    setBusy(true);
    setError('');
    try {
      onChange((await request(SetOverage, { enabled })).setOverage);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="credits-title">
      <h2 id="credits-title">Plan and credits</h2>
      <p>
        Plan: <strong class="plan">{credits.plan}</strong>
      </p>
      <label for="credits-bar">
        {credits.creditsUsed.toLocaleString()} of {credits.creditsIncluded.toLocaleString()} credits used this month
      </label>
      <progress
        id="credits-bar"
        class={share >= 90 ? 'credits high' : 'credits'}
        max={100}
        value={share}
        aria-valuetext={`${share}% used`}
      >
        {share}%
      </progress>
      <p class="hint">
        {credits.creditsRemaining.toLocaleString()} left · resets on {formatDay(credits.resetDate)} (UTC)
      </p>
      <h3>Pay as you go</h3>
      <p>
        Overage is <strong>{credits.overageEnabled ? 'on' : 'off'}</strong>
        {credits.overageEnabled
          ? `: past the allowance, work goes on at ${credits.overageRatePer1000} EUR per 1,000 credits ` +
            `(${credits.overageCredits.toLocaleString()} credits so far).`
          : ': when the allowance is used up, conversions are refused until the reset.'}
      </p>
      {overageAvailable ? (
        <label class="inline" for="overage">
          <input
            id="overage"
            type="checkbox"
            checked={credits.overageEnabled}
            disabled={busy}
            onChange={(event) => toggle(event.currentTarget.checked)}
          />{' '}
          Continue past the allowance at {credits.overageRatePer1000} EUR per 1,000 credits
        </label>
      ) : (
        <p class="hint">Pay as you go is not offered on your plan.</p>
      )}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

function KeysPanel({ keys, onChange }: { keys: ApiKey[]; onChange(keys: ApiKey[]): void }) {
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const keyInput = useRef<HTMLInputElement>(null);

  const generate = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    setCreated(null);
    setCopied(false);
    try {
      const { createApiKey } = await request(CreateApiKey, { name: name.trim() || null });
      setCreated(createApiKey.key);
      setName('');
      onChange([createApiKey.apiKey, ...keys]);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    if (created) keyInput.current?.focus();
  }, [created]);

  const revoke = async (id: string) => {
    setError('');
    try {
      await request(RevokeApiKey, { id });
      onChange(keys.filter((key) => key.id !== id));
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setConfirming(null);
    }
  };

  return (
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="hint">
        Send a key as <code>Authorization: Bearer &lt;key&gt;</code> to the REST, GraphQL and tRPC APIs (
        <a href="/docs">API reference</a>). Jobs made with a key count against this account's credits.
      </p>
      <form class="row" onSubmit={generate}>
        <div class="field grow">
          <label for="key-name">Name (optional)</label>
          <input
            id="key-name"
            type="text"
            maxLength={100}
            placeholder="e.g. build server"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Generating…' : 'Generate key'}
        </button>
      </form>
      {error ? (
        <p class="error" role="alert" id="key-error">
          {error}
        </p>
      ) : null}
      {created ? (
        <div class="notice success" role="status" id="new-key">
          <label for="new-key-value">Your new key. Copy it now: it is shown only this once.</label>
          <div class="row">
            <input
              id="new-key-value"
              ref={keyInput}
              class="mono grow"
              readOnly
              value={created}
              onFocus={(e) => e.currentTarget.select()}
            />
            <button type="button" onClick={async () => setCopied(await copyText(created, keyInput.current))}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
        </div>
      ) : null}
      {keys.length === 0 ? (
        <p class="hint">No keys yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="stack">
            <caption class="sr-only">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td data-label="Name">{key.name ?? '—'}</td>
                  <td data-label="Key" class="mono">
                    {key.prefix}…
                  </td>
                  <td data-label="Created">{formatDate(key.createdAt)}</td>
                  <td data-label="Last used">{key.lastUsedAt ? formatDate(key.lastUsedAt) : 'never'}</td>
                  <td class="actions">
                    {confirming === key.id ? (
                      <>
                        <button type="button" class="danger" onClick={() => revoke(key.id)}>
                          Confirm revoke
                        </button>{' '}
                        <button type="button" onClick={() => setConfirming(null)}>
                          Keep
                        </button>
                      </>
                    ) : (
                      <button
                        type="button"
                        aria-label={`Revoke key ${key.prefix}`}
                        onClick={() => setConfirming(key.id)}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function HistoryPanel({ first, signedUrls }: { first: History; signedUrls: boolean }) {
  const [page, setPage] = useState(first);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [minted, setMinted] = useState<Record<string, { url?: string; expiresAt?: string; error?: string }>>({});

  const go = async (offset: number) => {
    setBusy(true);
    setError('');
    try {
      const { history } = await request(HistoryQuery, { limit: PAGE_SIZE, offset });
      if (history) setPage(history);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  const mint = async (jobId: string) => {
    try {
      const { createSignedUrl } = await request(CreateSignedUrl, { jobId, expirySeconds: null });
      setMinted((all) => ({
        ...all,
        [jobId]: createSignedUrl
          ? { url: createSignedUrl.url, expiresAt: createSignedUrl.expiresAt }
          : { error: 'No URL was made.' },
      }));
    } catch (failure) {
      setMinted((all) => ({ ...all, [jobId]: { error: errorText(failure) } }));
    }
  };

  const from = page.total === 0 ? 0 : page.offset + 1;
  const to = page.offset + page.history.length;
  return (
    <section class="card wide" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {signedUrls ? (
        <p class="hint">
          Signed URLs keep an output past the usual hour, until the URL expires (24 hours by default). Make one within
          an hour of the job.
        </p>
      ) : (
        <p class="hint">Signed download URLs come with the Business plan and up.</p>
      )}
      {page.total === 0 ? (
        <p class="hint">Nothing converted yet.</p>
      ) : (
        <>
          <div class="table-wrap">
            <table class="stack">
              <caption class="sr-only">Conversions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Conversion</th>
                  <th scope="col">From</th>
                  <th scope="col">Job</th>
                  {signedUrls ? <th scope="col">Signed URL</th> : null}
                </tr>
              </thead>
              <tbody>
                {page.history.map((record) => (
                  <tr key={record.jobId}>
                    <td data-label="When">{formatDate(record.time)}</td>
                    <td data-label="Conversion">{record.conv}</td>
                    <td data-label="From">{record.viaApi ? 'API' : 'web'}</td>
                    <td data-label="Job" class="mono small">
                      {record.jobId}
                    </td>
                    {signedUrls ? (
                      <td data-label="Signed URL">
                        {minted[record.jobId]?.url ? (
                          <span>
                            <a href={minted[record.jobId]!.url}>Signed link</a>{' '}
                            <button
                              type="button"
                              class="small"
                              aria-label={`Copy the signed URL of job ${record.jobId}`}
                              onClick={() => copyText(minted[record.jobId]!.url!)}
                            >
                              Copy
                            </button>{' '}
                            <span class="hint">until {formatDate(minted[record.jobId]!.expiresAt)}</span>
                          </span>
                        ) : (
                          <button
                            type="button"
                            aria-label={`Make a signed URL for job ${record.jobId}`}
                            onClick={() => mint(record.jobId)}
                          >
                            Make URL
                          </button>
                        )}
                        {minted[record.jobId]?.error ? (
                          <p class="error" role="alert">
                            {minted[record.jobId]!.error}
                          </p>
                        ) : null}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="History pages">
            <button
              type="button"
              disabled={busy || page.offset === 0}
              onClick={() => go(Math.max(0, page.offset - PAGE_SIZE))}
            >
              Newer
            </button>
            <span aria-live="polite">
              {from}–{to} of {page.total}
            </span>
            <button type="button" disabled={busy || !page.hasMore} onClick={() => go(page.offset + PAGE_SIZE)}>
              Older
            </button>
          </nav>
        </>
      )}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
