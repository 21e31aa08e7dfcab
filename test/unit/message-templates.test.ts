import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMessage, sampleFacts, templateValues, type RenderedEmail } from '../../shared/domain/templates/message-rendering.ts';
import { checkedTemplate, renderSource, variablesIn } from '../../shared/domain/templates/template-language.ts';
import { brandingProblem, defaultBranding, type Branding } from '../../shared/model/branding.ts';
import { ServiceError } from '../../shared/model/errors.ts';
import { smsLength, TEMPLATE_VARIABLES, type MessageTemplate, type TemplateValues } from '../../shared/model/message-template.ts';

const NOW = new Date('2026-11-26T12:00:00Z');
const values = (over: Partial<TemplateValues> = {}): TemplateValues => ({ ...templateValues(sampleFacts(NOW), defaultBranding('Acme'), NOW), ...over });

/** The 422 a bad source gets, or undefined when it is accepted. */
function refusal(source: string, kind: 'plain' | 'html' = 'plain'): { param: string | undefined; message: string } | undefined {
  try {
    checkedTemplate('text', source, kind);
    return undefined;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    expect(error.code).toBe('validation_error');
    return { param: error.param, message: error.message };
  }
}

describe('the template language', () => {
  it('accepts every documented variable, Liquid logic, locals and the standard filters', () => {
    const source = `${Object.keys(TEMPLATE_VARIABLES).map((name) => `{{ ${name} }}`).join(' ')}{% assign who = customer_name | default: "there" %}{% if plan %}{{ who | upcase }}{% endif %}{{ customer_name.size }}`;
    expect(refusal(source)).toBeUndefined();
    expect(variablesIn(source, 'plain').sort()).toEqual(Object.keys(TEMPLATE_VARIABLES).sort());
  });

  it.each([
    ['{{ customer }}', "unknown variable 'customer'"],
    ['{{ customer_name.constructor }}', "unknown variable 'customer_name.constructor'"],
    ['{{ merchant_name["__proto__"] }}', "unknown variable 'merchant_name.__proto__'"],
    ['{% for x in secrets %}{{ x }}{% endfor %}', "unknown variable 'secrets'"],
    ['{{ amount | money }}', 'unknown filter: money'],
    ['{{ customer_name | raw }}', 'unknown filter: raw'],
    ['{% render "x" %}', 'not supported'],
    ['{% layout "x" %}', 'not supported'],
    ['{{ amount ', 'not closed'],
    ['{% nonsense %}', 'tag "nonsense" not found'],
  ])('refuses %s', (source, message) => {
    expect(refusal(source)).toEqual({ param: 'text', message: expect.stringContaining(message) });
  });

  it('escapes every printed value in HTML and nothing in plain text', () => {
    const hostile = values({ customer_name: '<img src=x onerror=alert(1)>&"\'' });
    expect(renderSource('html', '<b>{{ customer_name }}</b>', 'html', hostile)).toBe('<b>&lt;img src=x onerror=alert(1)&gt;&amp;&#34;&#39;</b>');
    expect(renderSource('text', '{{ customer_name }}', 'plain', hostile)).toBe('<img src=x onerror=alert(1)>&"\'');
  });

  it('escapes any value, whatever the filters around it (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('', ' | upcase', ' | downcase', ' | strip', ' | append: "x"', ' | default: "y"', ' | escape'), (name, filter) => {
        const html = renderSource('html', `{{ customer_name${filter} }}`, 'html', values({ customer_name: name }));
        expect(html).not.toMatch(/[<>"]/);
      }),
      { numRuns: 200 },
    );
  });

  it('renders nil for unknown facts, so a branch can leave them out', () => {
    expect(renderSource('text', '{% if update_url %}Link: {{ update_url }}{% else %}No link{% endif %}', 'plain', values({ update_url: null }))).toBe('No link');
  });
});

describe('sms length', () => {
  it.each([
    ['', 'gsm7', 0, 0],
    ['a'.repeat(160), 'gsm7', 160, 1],
    ['a'.repeat(161), 'gsm7', 161, 2],
    ['a'.repeat(306), 'gsm7', 306, 2],
    ['a'.repeat(307), 'gsm7', 307, 3],
    ['€'.repeat(80), 'gsm7', 160, 1],
    ['€'.repeat(81), 'gsm7', 162, 2],
    ['é'.repeat(160), 'gsm7', 160, 1],
    ['ü'.repeat(70).replace(/ü/g, 'ş'), 'ucs2', 70, 1],
    ['ş'.repeat(71), 'ucs2', 71, 2],
    ['ş'.repeat(134), 'ucs2', 134, 2],
    ['ş'.repeat(135), 'ucs2', 135, 3],
    ['💳'.repeat(35), 'ucs2', 70, 1],
  ])('%#: %s is %s, %i units, %i segments', (text, encoding, units, segments) => {
    expect(smsLength(text)).toEqual({ encoding, units, segments });
  });

  it('never splits an escaped character or a surrogate pair across parts', () => {
    // 152 plain septets then an escaped one: it moves to the second part, leaving the first at 152.
    expect(smsLength(`${'a'.repeat(152)}€${'a'.repeat(152)}`).segments).toBe(3);
    expect(smsLength(`${'ş'.repeat(66)}💳${'ş'.repeat(66)}`).segments).toBe(3);
  });

  it('agrees with the 160/153 and 70/67 rules on any text (property)', () => {
    const gsmChar = fc.constantFrom(...'abcXYZ 0123@£$!?ÄÖÑÜéè\n');
    const extension = fc.constantFrom(...'^{}[]~|€\\');
    const ucsChar = fc.constantFrom('ş', 'ł', 'ж', '中', '😀', 'a', '€');
    const gsmText = fc.array(fc.oneof({ weight: 5, arbitrary: gsmChar }, { weight: 1, arbitrary: extension }), { maxLength: 800 }).map((cs) => cs.join(''));
    const ucsText = fc.array(ucsChar, { minLength: 1, maxLength: 400 }).map((cs) => `ş${cs.join('')}`);
    fc.assert(
      fc.property(fc.oneof(gsmText, ucsText), (text) => {
        const { encoding, units, segments } = smsLength(text);
        const limits = encoding === 'gsm7' ? { single: 160, part: 153 } : { single: 70, part: 67 };
        expect(encoding).toBe(/ş|ł|ж|中|😀/.test(text) ? 'ucs2' : 'gsm7');
        if (units === 0) expect(segments).toBe(0);
        else if (units <= limits.single) expect(segments).toBe(1);
        else {
          // Each part holds at most `part` units, and at least `part - 1` except the last (a pair moved whole).
          expect(segments).toBeGreaterThanOrEqual(Math.ceil(units / limits.part));
          expect(segments).toBeLessThanOrEqual(Math.ceil(units / (limits.part - 1)));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('branded emails', () => {
  const template: MessageTemplate = {
    id: 'tpl_x',
    channel: 'email',
    name: 'x',
    subject: 'Hello {{ customer_name }}',
    html: null,
    text: 'Line one\nline two\n\n<Second> paragraph',
    built_in: false,
    created_at: '',
    updated_at: '',
    version: 1,
  };
  const branding: Branding = { name: 'Acme & Co', logo_url: null, accent_color: '#123abc', support_email: null };

  it('makes the HTML from the text when the template has none, escaped, in the frame with the name as the logo', () => {
    const email = renderMessage(template, values(), branding) as RenderedEmail;
    expect(email.subject).toBe('Hello Jane Doe');
    expect(email.html).toContain('<p>Line one<br>line two</p><p>&lt;Second&gt; paragraph</p>');
    expect(email.html).toContain('<span style="font-size:20px;font-weight:bold;color:#123abc">Acme &amp; Co</span>');
    expect(email.html).not.toContain('mailto:');
    expect(email.text.endsWith('--\nYou are receiving this because of a payment for your Acme & Co subscription. This is a service message about your account.')).toBe(true);
  });

  it('takes the subject given instead of the template’s', () => {
    expect((renderMessage(template, values(), branding, 'Step subject') as RenderedEmail).subject).toBe('Step subject');
  });
});

describe('branding', () => {
  const valid: Branding = { name: 'Acme', logo_url: 'https://cdn.acme.example/logo.png', accent_color: '#aabbcc', support_email: 'help@acme.example' };

  it.each([
    [{}, null],
    [{ logo_url: 'http://cdn.acme.example/logo.png' }, 'logo_url'],
    [{ logo_url: 'https://10.0.0.1/logo.png' }, 'logo_url'],
    [{ accent_color: '#ABC' }, 'accent_color'],
    [{ accent_color: 'red' }, 'accent_color'],
    [{ support_email: 'not an address' }, 'support_email'],
    [{ name: ' ' }, 'name'],
  ])('%o → %s', (change, field) => {
    expect(brandingProblem({ ...valid, ...change })?.field ?? null).toBe(field);
  });

  it('defaults to the merchant name, no logo, a default colour and no support address', () => {
    expect(defaultBranding('Acme')).toEqual({ name: 'Acme', logo_url: null, accent_color: '#2251c8', support_email: null });
    expect(brandingProblem(defaultBranding('Acme'))).toBeNull();
  });
});
