import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { answer, api, idempotencyKey } from '../api/client.ts';
import type { components, operations } from '../api/schema.gen.ts';
import type { Operation } from '../api/scopes.gen.ts';
import { usePermission } from '../caller.ts';
import { ActionButton } from '../components/controls.tsx';
import { Empty, ErrorNotice, Resolved } from '../components/states.tsx';
import { Status, Time } from '../components/values.tsx';
import { useAction, useLoad } from '../load.ts';
import { TableHead } from '../components/table-head.tsx';

type ApiKey = components['schemas']['ApiKey'];
type Endpoint = components['schemas']['WebhookEndpoint'];
type Scope = NonNullable<operations['apiKeysCreate']['requestBody']['content']['application/json']['scopes']>[number];
const SCOPES: Scope[] = ['read', 'write', 'admin', 'analytics', 'webhooks'];

export function Developers() {
  return (
    <section aria-labelledby="developers-title">
      <h1 id="developers-title">Developers</h1>
      <Gate operation="GET /v1/api-keys" title="API keys">
        <ApiKeys />
      </Gate>
      <Gate operation="GET /v1/processors" title="Processors">
        <Processors />
      </Gate>
      <Gate operation="GET /v1/webhooks" title="Webhook endpoints">
        <Endpoints />
      </Gate>
    </section>
  );
}

/** A section the key may not read says why instead of asking the API for a 403. */
function Gate({ operation, title, children }: { operation: Operation; title: string; children: ComponentChildren }) {
  const permission = usePermission(operation);
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {permission.allowed ? children : <p class="reason">{permission.reason}</p>}
    </section>
  );
}

/** A secret shown once, with a way to copy it; the dashboard keeps no copy. */
function SecretOnce({ label, secret }: { label: string; secret: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="notice secret" role="status">
      <p>
        <strong>{label}</strong> Copy it now: it is not shown again.
      </p>
      <code>{secret}</code>{' '}
      <button type="button" class="secondary" onClick={() => navigator.clipboard.writeText(secret).then(() => setCopied(true))}>
        {copied ? 'Copied' : 'Copy secret'}
      </button>
    </div>
  );
}

function ApiKeys() {
  const loaded = useLoad(() => answer(api.GET('/v1/api-keys', { params: { query: { per_page: 100 } } })), 'keys');
  const action = useAction();
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const nameId = useId();
  const create = async (event: Event) => {
    event.preventDefault();
    const made = await action.run(() => answer(api.POST('/v1/api-keys', { params: { header: { 'Idempotency-Key': idempotencyKey() } }, body: { name, scopes } })));
    if (made) {
      setSecret({ label: `New key “${made.data.name}”.`, value: made.data.secret });
      setName('');
      loaded.reload();
    }
  };
  const rotate = async (key: ApiKey) => {
    const rotated = await action.run(() => answer(api.POST('/v1/api-keys/{id}/rotate', { params: { path: { id: key.id } } })));
    if (rotated) {
      setSecret({ label: `“${key.name}” rotated: the old secret keeps working for 24 hours.`, value: rotated.data.secret });
      loaded.reload();
    }
  };
  const revoke = async (key: ApiKey) => {
    if (await action.run(() => answer(api.POST('/v1/api-keys/{id}/revoke', { params: { path: { id: key.id } } })))) loaded.reload();
  };
  return (
    <>
      {secret && <SecretOnce label={secret.label} secret={secret.value} />}
      {action.error && <ErrorNotice error={action.error} />}
      <Resolved loaded={loaded} what="API keys">
        {({ data }) =>
          data.length === 0 ? (
            <Empty>No keys.</Empty>
          ) : (
            <div class="table-scroll">
              <table>
                <caption class="visually-hidden">API keys</caption>
                <TableHead columns={['Name', 'Key', 'Scopes', 'Status', 'Created', 'Actions']} />
                <tbody>
                  {data.map((key) => (
                    <tr>
                      <td>{key.name}</td>
                      <td>
                        <code>{key.redacted_key}</code>
                      </td>
                      <td>{key.scopes.join(', ')}</td>
                      <td>
                        <Status value={key.status} />
                      </td>
                      <td>
                        <Time at={key.created_at} />
                      </td>
                      <td class="actions">
                        <ActionButton operation="POST /v1/api-keys/{id}/rotate" variant="secondary" onClick={() => rotate(key)} running={action.running} blockedBecause={key.status === 'active' ? null : `A ${key.status} key cannot be rotated.`}>
                          Rotate {key.name}
                        </ActionButton>
                        <ActionButton operation="POST /v1/api-keys/{id}/revoke" variant="danger" onClick={() => revoke(key)} running={action.running} blockedBecause={key.status === 'revoked' ? 'Already revoked.' : null}>
                          Revoke {key.name}
                        </ActionButton>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Resolved>
      <form class="inline-form" onSubmit={create}>
        <h3>Create a key</h3>
        <label for={nameId}>Name</label>
        <input id={nameId} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        {action.error?.param === 'name' && <span class="field-error">{action.error.message}</span>}
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label class="check">
              <input type="checkbox" checked={scopes.includes(scope)} onChange={(event) => setScopes(event.currentTarget.checked ? [...scopes, scope] : scopes.filter((value) => value !== scope))} /> {scope}
            </label>
          ))}
        </fieldset>
        <ActionButton operation="POST /v1/api-keys" type="submit" running={action.running}>
          Create key
        </ActionButton>
      </form>
    </>
  );
}

function Processors() {
  const loaded = useLoad(() => answer(api.GET('/v1/processors', { params: { query: { per_page: 100 } } })), 'processors');
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <Resolved loaded={loaded} what="processor connections">
      {({ data }) =>
        data.length === 0 ? (
          <Empty>No processor connected: PUT /v1/processors/&#123;psp&#125; with its webhook secret connects one.</Empty>
        ) : (
          <ul class="plain">
            {data.map((connection) => (
              <li class="card">
                <strong>{connection.psp}</strong> · retries {connection.retries_enabled ? 'on' : 'off'} · connected <Time at={connection.created_at} />
                <div>
                  Webhook URL: <code>{connection.webhook_url}</code>{' '}
                  <button type="button" class="secondary" onClick={() => navigator.clipboard.writeText(connection.webhook_url).then(() => setCopied(connection.id))}>
                    {copied === connection.id ? 'Copied' : `Copy ${connection.psp} webhook URL`}
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )
      }
    </Resolved>
  );
}

function Endpoints() {
  const loaded = useLoad(() => answer(api.GET('/v1/webhooks', { params: { query: { per_page: 100 } } })), 'endpoints');
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Resolved loaded={loaded} what="webhook endpoints">
      {({ data }) =>
        data.length === 0 ? (
          <Empty>No endpoint: POST /v1/webhooks with a URL and the events to receive adds one.</Empty>
        ) : (
          <ul class="plain">
            {data.map((endpoint) => (
              <li class="card">
                <strong>{endpoint.url}</strong> <Status value={endpoint.enabled ? 'enabled' : 'disabled'} />
                <div class="muted">
                  {endpoint.events.join(', ')}
                  {endpoint.disabled_reason ? ` · disabled (${endpoint.disabled_reason})` : ''}
                </div>
                <button type="button" class="secondary" aria-expanded={open === endpoint.id} onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)}>
                  {open === endpoint.id ? 'Hide deliveries' : 'Show deliveries'}
                </button>
                {open === endpoint.id && <Deliveries endpoint={endpoint} />}
              </li>
            ))}
          </ul>
        )
      }
    </Resolved>
  );
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const loaded = useLoad(() => answer(api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id: endpoint.id }, query: { per_page: 50 } } })), endpoint.id);
  const replay = useAction();
  const [done, setDone] = useState<string | null>(null);
  const run = async (deliveryId: string) => {
    const replayed = await replay.run(() =>
      answer(api.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/replay', { params: { path: { id: endpoint.id, delivery_id: deliveryId }, header: { 'Idempotency-Key': idempotencyKey() } } })),
    );
    if (replayed) {
      setDone('Delivery queued again.');
      loaded.reload();
    }
  };
  return (
    <>
      <p role="status" class="notice" aria-live="polite">
        {done}
      </p>
      {replay.error && <ErrorNotice error={replay.error} />}
      <Resolved loaded={loaded} what="deliveries">
        {({ data }) =>
          data.length === 0 ? (
            <p class="muted">Nothing delivered yet.</p>
          ) : (
            <table>
              <caption class="visually-hidden">Deliveries to {endpoint.url}</caption>
              <TableHead columns={['Event', 'Status', 'Attempts', 'Last answer', 'Created', 'Action']} />
              <tbody>
                {data.map((delivery) => (
                  <tr>
                    <td>
                      {delivery.event_type} <code>{delivery.event_id}</code>
                    </td>
                    <td>
                      <Status value={delivery.status} />
                    </td>
                    <td>{delivery.attempts}</td>
                    <td>{delivery.last_status_code ?? delivery.last_error ?? '—'}</td>
                    <td>
                      <Time at={delivery.created_at} />
                    </td>
                    <td>
                      <ActionButton operation="POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay" variant="secondary" onClick={() => run(delivery.id)} running={replay.running}>
                        Replay
                      </ActionButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Resolved>
    </>
  );
}
