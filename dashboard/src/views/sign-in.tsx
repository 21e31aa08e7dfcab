import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client.ts';
import { ErrorNotice } from '../components/states.tsx';

/**
 * Sign-in with an API key: a read or analytics key to look, a write or admin key to act. The key is
 * kept for this tab only (sessionStorage) and sent only as the Authorization header.
 */
export function SignIn({ onSignIn, error }: { onSignIn: (key: string) => void; error?: ApiError }) {
  const [key, setKey] = useState('');
  const [missing, setMissing] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    if (!key.trim()) {
      setMissing(true);
      return;
    }
    onSignIn(key.trim());
  };
  return (
    <main class="sign-in" id="main">
      <h1>Sign in to the recovery dashboard</h1>
      <p>
        Use a secret API key. A key with the <code>read</code> or <code>analytics</code> scope can look; <code>write</code> or{' '}
        <code>admin</code> can also act. The key stays in this browser tab and is forgotten when you sign out or close the tab.
      </p>
      {error && <ErrorNotice error={error} />}
      <form onSubmit={submit} noValidate>
        <label for="api-key">API key</label>
        <p id="api-key-hint" class="hint">
          Starts with svc_test_ or svc_live_. Locally, <code>npm start</code> prints a sign-in link.
        </p>
        {missing && (
          <p id="api-key-error" class="field-error">
            Enter an API key
          </p>
        )}
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={key}
          aria-describedby={missing ? 'api-key-hint api-key-error' : 'api-key-hint'}
          aria-invalid={missing}
          onInput={(event) => {
            setKey(event.currentTarget.value);
            setMissing(false);
          }}
        />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}
