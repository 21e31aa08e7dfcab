import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { answer, api, idempotencyKey, type ApiError } from '../api/client.ts';
import type { components, operations } from '../api/schema.gen.ts';
import { ActionButton } from '../components/controls.tsx';
import { ErrorNotice, Resolved } from '../components/states.tsx';
import { words } from '../format.ts';
import { useAction, useLoad } from '../load.ts';
import { href, navigate } from '../router.ts';
import { TRIGGERS } from './campaigns.tsx';

type Campaign = components['schemas']['Campaign'];
type CampaignBody = operations['campaignsCreate']['requestBody']['content']['application/json'];
type StepBody = CampaignBody['steps'][number];
const CATEGORIES = ['soft_retry', 'hard_customer', 'terminal', 'unknown'] as const;

/** The form's text state: numbers stay text until sent, so the API's own validation speaks for them. */
interface Draft {
  name: string;
  description: string;
  trigger: CampaignBody['trigger'];
  decline_categories: string[];
  min_amount: string;
  max_amount: string;
  steps: { channel: StepBody['channel']; template_id: string; subject: string; delay_hours: string }[];
  max_attempts: string;
  stop_on_recovery: boolean;
  stop_on_terminal: boolean;
  stop_on_card_update: boolean;
  quiet_enabled: boolean;
  start_hour: string;
  end_hour: string;
  timezone: string;
}

const BLANK: Draft = {
  name: '',
  description: '',
  trigger: 'payment_failed',
  decline_categories: [],
  min_amount: '',
  max_amount: '',
  steps: [{ channel: 'email', template_id: '', subject: '', delay_hours: '0' }],
  max_attempts: '3',
  stop_on_recovery: true,
  stop_on_terminal: true,
  stop_on_card_update: true,
  quiet_enabled: false,
  start_hour: '21',
  end_hour: '8',
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
};

function draftOf(campaign: Campaign): Draft {
  return {
    name: campaign.name,
    description: campaign.description,
    trigger: campaign.trigger,
    decline_categories: [...campaign.trigger_conditions.decline_categories],
    min_amount: campaign.trigger_conditions.min_amount?.toString() ?? '',
    max_amount: campaign.trigger_conditions.max_amount?.toString() ?? '',
    steps: campaign.steps.map((step) => ({ channel: step.channel, template_id: step.template_id, subject: step.subject ?? '', delay_hours: String(step.delay_hours) })),
    max_attempts: String(campaign.stop_conditions.max_attempts),
    stop_on_recovery: campaign.stop_conditions.stop_on_recovery,
    stop_on_terminal: campaign.stop_conditions.stop_on_terminal,
    stop_on_card_update: campaign.stop_conditions.stop_on_card_update,
    quiet_enabled: campaign.quiet_hours.enabled,
    start_hour: String(campaign.quiet_hours.start_hour),
    end_hour: String(campaign.quiet_hours.end_hour),
    timezone: campaign.quiet_hours.timezone,
  };
}

/** A number field's value as sent: a whole number when it reads as one, otherwise the text, for the API to refuse by name. */
const numeric = (text: string): number => (/^-?\d+$/.test(text.trim()) ? Number(text) : (text as unknown as number));
const optionalAmount = (text: string): number | null => (text.trim() === '' ? null : numeric(text));

function bodyOf(draft: Draft): CampaignBody {
  return {
    name: draft.name,
    description: draft.description,
    trigger: draft.trigger,
    trigger_conditions: {
      decline_categories: draft.decline_categories as (typeof CATEGORIES)[number][],
      min_amount: optionalAmount(draft.min_amount),
      max_amount: optionalAmount(draft.max_amount),
    },
    steps: draft.steps.map((step) => ({
      channel: step.channel,
      template_id: step.template_id,
      ...(step.channel === 'email' ? { subject: step.subject } : {}),
      delay_hours: numeric(step.delay_hours),
    })),
    stop_conditions: {
      max_attempts: numeric(draft.max_attempts),
      stop_on_recovery: draft.stop_on_recovery,
      stop_on_terminal: draft.stop_on_terminal,
      stop_on_card_update: draft.stop_on_card_update,
    },
    quiet_hours: { enabled: draft.quiet_enabled, start_hour: numeric(draft.start_hour), end_hour: numeric(draft.end_hour), timezone: draft.timezone },
  };
}

export function NewCampaign() {
  return <CampaignForm initial={BLANK} />;
}

export function EditCampaign({ id }: { id: string }) {
  const loaded = useLoad(() => answer(api.GET('/v1/campaigns/{id}', { params: { path: { id } } })), id);
  return (
    <Resolved loaded={loaded} what="the campaign">
      {({ data }) => <CampaignForm initial={draftOf(data)} campaign={data} />}
    </Resolved>
  );
}

const fieldId = (param: string): string => `field-${param.replace(/\./g, '-')}`;

/**
 * Create or edit a campaign. The API validates: its refusal is shown in a summary linking to the
 * field, and next to the field it names (`param`, e.g. steps.1.delay_hours).
 */
function CampaignForm({ initial, campaign }: { initial: Draft; campaign?: Campaign }) {
  const [draft, setDraft] = useState(initial);
  const save = useAction();
  const set = <K extends keyof Draft>(name: K, value: Draft[K]) => setDraft((current) => ({ ...current, [name]: value }));
  const setStep = (index: number, change: Partial<Draft['steps'][number]>) =>
    setDraft((current) => ({ ...current, steps: current.steps.map((step, at) => (at === index ? { ...step, ...change } : step)) }));
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = bodyOf(draft);
    const header = { 'Idempotency-Key': idempotencyKey() };
    const saved = await save.run(async () =>
      campaign
        ? (await answer(api.PUT('/v1/campaigns/{id}', { params: { path: { id: campaign.id } }, body }))).data.id
        : (await answer(api.POST('/v1/campaigns', { params: { header }, body }))).data.id,
    );
    if (saved) navigate(href(`/campaigns/${saved}`));
  };
  const error = save.error;
  const errorFor = (param: string) => (error?.param === param ? error : null);
  return (
    <section aria-labelledby="campaign-form-title">
      <p>
        <a href={href(campaign ? `/campaigns/${campaign.id}` : '/campaigns')}>← {campaign ? campaign.name : 'Campaigns'}</a>
      </p>
      <h1 id="campaign-form-title">{campaign ? `Edit ${campaign.name}` : 'New campaign'}</h1>
      {campaign?.status === 'active' && <p class="notice">This campaign is active: changes apply to customers enrolled from now on; those already enrolled keep the steps they joined with.</p>}
      {error && (error.param ? <ErrorSummary error={error} /> : <ErrorNotice error={error} />)}
      <form class="campaign-form" onSubmit={submit} noValidate>
        <Field param="name" label="Name" error={errorFor('name')}>
          <input id={fieldId('name')} value={draft.name} onInput={(event) => set('name', event.currentTarget.value)} aria-invalid={!!errorFor('name')} />
        </Field>
        <Field param="description" label="Description" hint="For your team; customers never see it." error={errorFor('description')}>
          <textarea id={fieldId('description')} value={draft.description} onInput={(event) => set('description', event.currentTarget.value)} rows={2} />
        </Field>
        <Field param="trigger" label="Trigger" error={errorFor('trigger')}>
          <select id={fieldId('trigger')} value={draft.trigger} onChange={(event) => set('trigger', event.currentTarget.value as Draft['trigger'])}>
            {TRIGGERS.map((trigger) => (
              <option value={trigger}>{words(trigger)}</option>
            ))}
          </select>
        </Field>
        <fieldset>
          <legend>Only failures in these decline categories (none: all)</legend>
          {errorFor('trigger_conditions.decline_categories') && <p class="field-error">{error!.message}</p>}
          {CATEGORIES.map((category) => (
            <label class="check">
              <input
                type="checkbox"
                checked={draft.decline_categories.includes(category)}
                onChange={(event) =>
                  set('decline_categories', event.currentTarget.checked ? [...draft.decline_categories, category] : draft.decline_categories.filter((value) => value !== category))
                }
              />{' '}
              {words(category)}
            </label>
          ))}
        </fieldset>
        <div class="pair">
          <Field param="trigger_conditions.min_amount" label="Minimum amount" hint="Smallest currency unit; empty for none" error={errorFor('trigger_conditions.min_amount')}>
            <input id={fieldId('trigger_conditions.min_amount')} inputMode="numeric" value={draft.min_amount} onInput={(event) => set('min_amount', event.currentTarget.value)} />
          </Field>
          <Field param="trigger_conditions.max_amount" label="Maximum amount" hint="Smallest currency unit; empty for none" error={errorFor('trigger_conditions.max_amount')}>
            <input id={fieldId('trigger_conditions.max_amount')} inputMode="numeric" value={draft.max_amount} onInput={(event) => set('max_amount', event.currentTarget.value)} />
          </Field>
        </div>

        <h2>Steps</h2>
        {errorFor('steps') && <p class="field-error">{error!.message}</p>}
        {draft.steps.map((step, index) => (
          <fieldset class="step">
            <legend>Step {index + 1}</legend>
            <div class="pair">
              <Field param={`steps.${index}.channel`} label="Channel" error={errorFor(`steps.${index}.channel`)}>
                <select id={fieldId(`steps.${index}.channel`)} value={step.channel} onChange={(event) => setStep(index, { channel: event.currentTarget.value as 'email' | 'sms' })}>
                  <option value="email">email</option>
                  <option value="sms">sms</option>
                </select>
              </Field>
              <Field param={`steps.${index}.delay_hours`} label="Delay (hours)" hint={index === 0 ? 'After enrollment' : 'After the previous step'} error={errorFor(`steps.${index}.delay_hours`)}>
                <input id={fieldId(`steps.${index}.delay_hours`)} inputMode="numeric" value={step.delay_hours} onInput={(event) => setStep(index, { delay_hours: event.currentTarget.value })} />
              </Field>
            </div>
            <Field param={`steps.${index}.template_id`} label="Template" hint="Your message template's id, e.g. tpl_update_payment_method" error={errorFor(`steps.${index}.template_id`)}>
              <input id={fieldId(`steps.${index}.template_id`)} value={step.template_id} onInput={(event) => setStep(index, { template_id: event.currentTarget.value })} />
            </Field>
            {step.channel === 'email' && (
              <Field param={`steps.${index}.subject`} label="Email subject" error={errorFor(`steps.${index}.subject`)}>
                <input id={fieldId(`steps.${index}.subject`)} value={step.subject} onInput={(event) => setStep(index, { subject: event.currentTarget.value })} />
              </Field>
            )}
            {draft.steps.length > 1 && (
              <button type="button" class="secondary" onClick={() => set('steps', draft.steps.filter((_, at) => at !== index))}>
                Remove step {index + 1}
              </button>
            )}
          </fieldset>
        ))}
        <button type="button" class="secondary" onClick={() => set('steps', [...draft.steps, { channel: 'email', template_id: '', subject: '', delay_hours: '24' }])}>
          Add a step
        </button>

        <h2>Stop conditions</h2>
        <Field param="stop_conditions.max_attempts" label="Most messages per customer" error={errorFor('stop_conditions.max_attempts')}>
          <input id={fieldId('stop_conditions.max_attempts')} inputMode="numeric" value={draft.max_attempts} onInput={(event) => set('max_attempts', event.currentTarget.value)} />
        </Field>
        <label class="check">
          <input type="checkbox" checked={draft.stop_on_recovery} onChange={(event) => set('stop_on_recovery', event.currentTarget.checked)} /> Stop when the payment is recovered
        </label>
        <label class="check">
          <input type="checkbox" checked={draft.stop_on_terminal} onChange={(event) => set('stop_on_terminal', event.currentTarget.checked)} /> Stop when the payment ends terminal
        </label>
        <label class="check">
          <input type="checkbox" checked={draft.stop_on_card_update} onChange={(event) => set('stop_on_card_update', event.currentTarget.checked)} /> Stop when the customer updates their card
        </label>

        <h2>Quiet hours</h2>
        <label class="check">
          <input type="checkbox" checked={draft.quiet_enabled} onChange={(event) => set('quiet_enabled', event.currentTarget.checked)} /> Hold messages during quiet hours
        </label>
        {draft.quiet_enabled && (
          <div class="pair">
            <Field param="quiet_hours.start_hour" label="From hour" error={errorFor('quiet_hours.start_hour')}>
              <input id={fieldId('quiet_hours.start_hour')} inputMode="numeric" value={draft.start_hour} onInput={(event) => set('start_hour', event.currentTarget.value)} />
            </Field>
            <Field param="quiet_hours.end_hour" label="To hour" error={errorFor('quiet_hours.end_hour')}>
              <input id={fieldId('quiet_hours.end_hour')} inputMode="numeric" value={draft.end_hour} onInput={(event) => set('end_hour', event.currentTarget.value)} />
            </Field>
            <Field param="quiet_hours.timezone" label="Time zone" hint="IANA name, e.g. Europe/Berlin" error={errorFor('quiet_hours.timezone')}>
              <input id={fieldId('quiet_hours.timezone')} value={draft.timezone} onInput={(event) => set('timezone', event.currentTarget.value)} />
            </Field>
          </div>
        )}
        <div class="form-actions">
          <ActionButton operation={campaign ? 'PUT /v1/campaigns/{id}' : 'POST /v1/campaigns'} type="submit" running={save.running}>
            {campaign ? 'Save changes' : 'Create draft campaign'}
          </ActionButton>
        </div>
      </form>
    </section>
  );
}

function Field({ param, label, hint, error, children }: { param: string; label: string; hint?: string; error: ApiError | null; children: ComponentChildren }) {
  const id = fieldId(param);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && <span class="hint">{hint}</span>}
      {error && (
        <span class="field-error" id={`${id}-error`}>
          {error.message}
        </span>
      )}
      {children}
    </div>
  );
}

/** GOV.UK's error summary: what is wrong, focused, linking to the field. */
function ErrorSummary({ error }: { error: ApiError }) {
  return (
    <div class="state error" role="alert" tabIndex={-1} ref={(element) => element?.focus()}>
      <h2>There is a problem</h2>
      <p>
        <a href={`#${fieldId(error.param!)}`}>{error.message}</a>
      </p>
      {error.requestId && (
        <p class="muted">
          request id <code>{error.requestId}</code>
        </p>
      )}
    </div>
  );
}
