/*!
 * cancel-widget.js: the payment-recovery cancel flow, embeddable in a merchant's account page.
 * No dependencies, no build step. Usage (README.md, "Cancel flows"):
 *
 *   <script src="https://<edge>/cancel-widget.js" defer
 *           data-merchant="mer_..." data-customer="cus_..." data-subscription="sub_..."
 *           data-auth-hash="<HMAC your server computed>"
 *           data-api="https://<edge_url>" data-environment="test"></script>
 *
 * data-auth-hash (required in live mode) is the lowercase hex HMAC-SHA256 of
 * "<customer>:<subscription>" under your cancel signing secret, computed on your server for the
 * signed-in subscriber: it is what stops anyone else from starting a cancellation in their name.
 *
 * It renders a "Cancel subscription" button where the script tag is (or inside data-target). The
 * button opens a modal dialog that starts a cancel session, walks through the merchant's active cancel
 * flow (survey, offer, confirm) and completes it as saved or churned. The host element then fires
 * `cancel-flow:complete` (bubbling, composed) with detail {outcome, sessionId}.
 */
(function () {
  'use strict';

  var script = document.currentScript;
  if (!script) return;
  var data = script.dataset;
  var apiBase = (data.api || new URL(script.src, location.href).origin).replace(/\/+$/, '');
  var settings = {
    merchant: data.merchant || '',
    customer: data.customer || '',
    subscription: data.subscription || '',
    authHash: data.authHash || '',
    environment: data.environment === 'test' ? 'test' : 'live',
    buttonLabel: data.buttonLabel || 'Cancel subscription',
  };

  var STYLE = [
    ':host { all: initial; display: inline-block; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; }',
    '*, *::before, *::after { box-sizing: border-box; }',
    'button { font: inherit; min-height: 44px; padding: 0.55rem 1.1rem; border-radius: 8px; border: 1px solid #8c959f; background: #fff; color: #1f2328; cursor: pointer; }',
    'button:hover { background: #f3f4f6; }',
    'button:focus-visible, input:focus-visible, textarea:focus-visible, [tabindex="-1"]:focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }',
    'button[disabled] { opacity: 0.6; cursor: progress; }',
    '.primary { background: #0969da; border-color: #0969da; color: #fff; }',
    '.primary:hover { background: #0758b8; }',
    '.danger { background: #cf222e; border-color: #cf222e; color: #fff; }',
    '.danger:hover { background: #a40e26; }',
    '.link { border: none; background: none; text-decoration: underline; padding: 0.55rem 0.25rem; }',
    'dialog { width: min(34rem, calc(100vw - 1.5rem)); max-height: calc(100dvh - 1.5rem); overflow: auto; border: none; border-radius: 14px; padding: 0; box-shadow: 0 12px 40px rgba(0,0,0,0.25); color: #1f2328; }',
    'dialog::backdrop { background: rgba(15, 20, 25, 0.55); }',
    '.head { display: flex; align-items: flex-start; justify-content: space-between; gap: 1rem; padding: 1.25rem 1.25rem 0; }',
    'h2 { font-size: 1.25rem; line-height: 1.3; margin: 0; }',
    'h3 { font-size: 1.1rem; margin: 0 0 0.5rem; }',
    '.close { min-width: 44px; padding: 0; border: none; font-size: 1.5rem; line-height: 1; background: none; }',
    '.body { padding: 1rem 1.25rem 1.25rem; }',
    '.messages { padding: 0 1.25rem; }',
    '.error:not(:empty) { margin-bottom: 1.25rem; }',
    'fieldset { border: none; margin: 0 0 1rem; padding: 0; }',
    'legend { font-weight: 600; margin-bottom: 0.5rem; padding: 0; }',
    '.choice { display: flex; align-items: center; gap: 0.6rem; min-height: 44px; padding: 0.35rem 0.6rem; border: 1px solid #d0d7de; border-radius: 8px; margin-bottom: 0.5rem; cursor: pointer; }',
    '.choice:has(input:checked) { border-color: #0969da; background: #f0f6ff; }',
    '.choice input { width: 1.15rem; height: 1.15rem; margin: 0; flex: none; }',
    'label.text { display: block; font-weight: 600; margin-bottom: 0.35rem; }',
    'textarea { width: 100%; min-height: 5rem; font: inherit; padding: 0.5rem; border: 1px solid #8c959f; border-radius: 8px; resize: vertical; }',
    '.offer { border: 1px solid #d0d7de; border-radius: 12px; padding: 1rem; background: #f6f8fa; margin-bottom: 1rem; }',
    '.terms { font-weight: 600; color: #1a7f37; margin: 0.5rem 0 0; }',
    '.actions { display: flex; flex-wrap: wrap; gap: 0.6rem; margin-top: 1rem; }',
    '.actions > button { flex: 1 1 12rem; }',
    '.step { color: #57606a; font-size: 0.875rem; margin: 0 0 0.75rem; }',
    '.error { color: #a40e26; margin: 0.75rem 0 0; }',
    '.error:empty { display: none; }',
    // The live region is for screen readers: what it says is already on screen.
    '.status { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }',
    '@media (max-width: 30rem) { .head { padding: 1rem 1rem 0; } .body { padding: 0.75rem 1rem 1rem; } .actions > button { flex-basis: 100%; } }',
  ].join('\n');

  // ---------------------------------------------------------------------------------------------
  // DOM

  var host = document.createElement('div');
  host.className = 'cancel-flow-widget';
  var target = data.target ? document.querySelector(data.target) : null;
  if (target) target.appendChild(host);
  else script.insertAdjacentElement('afterend', host);
  var root = host.attachShadow({ mode: 'open' });

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (value === undefined || value === null || value === false) return;
      if (name === 'text') node.textContent = value;
      else if (name.slice(0, 2) === 'on') node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : value);
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(child);
    });
    return node;
  }

  var uid = 0;
  function nextId(prefix) {
    uid += 1;
    return 'cfw-' + prefix + '-' + uid;
  }

  var title = el('h2', { id: 'cfw-title', tabindex: '-1', text: 'Cancel subscription' });
  var body = el('div', { class: 'body' });
  var status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  var error = el('p', { class: 'error', role: 'alert' });
  var dialog = el('dialog', { 'aria-labelledby': 'cfw-title' }, [
    el('div', { class: 'head' }, [title, el('button', { type: 'button', class: 'close', 'aria-label': 'Close', text: '\u00d7', onclick: close })]),
    body,
    el('div', { class: 'messages' }, [status, error]),
  ]);
  var opener = el('button', { type: 'button', class: 'opener', text: settings.buttonLabel, onclick: open });
  root.appendChild(el('style', { text: STYLE }));
  root.appendChild(opener);
  root.appendChild(dialog);

  // ---------------------------------------------------------------------------------------------
  // API (§4.5; bodies snake_case, session objects camelCase)

  function ApiError(message, httpStatus) {
    this.message = message;
    this.status = httpStatus;
  }

  function call(path, payload) {
    var init = payload === undefined ? { method: 'GET' } : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload) };
    return fetch(apiBase + '/api/cancel-session' + path, init).then(
      function (response) {
        return response
          .json()
          .catch(function () {
            return null;
          })
          .then(function (json) {
            if (response.ok) return json;
            var message = json && json.error && json.error.message;
            throw new ApiError(message || 'The request failed (HTTP ' + response.status + ').', response.status);
          });
      },
      function () {
        throw new ApiError('We could not reach the service. Check your connection and try again.', 0);
      },
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Flow state

  var token = null;
  var answers = { reason: null, sub_reason: null, free_text: null };
  var finished = false;

  function say(message) {
    status.textContent = '';
    // A fresh text node after clearing, so screen readers announce repeats too.
    setTimeout(function () {
      status.textContent = message;
    }, 30);
  }

  function show(heading, nodes) {
    title.textContent = heading;
    error.textContent = '';
    body.replaceChildren.apply(body, nodes);
    title.focus();
  }

  function busy(form, on) {
    Array.prototype.forEach.call(form.querySelectorAll('button, input, textarea'), function (control) {
      control.disabled = on;
    });
    if (on) say('Saving\u2026');
  }

  function fail(problem) {
    if (problem && problem.status === 404) {
      token = null;
      show('This page has expired', [
        el('p', { text: 'Your cancellation session ended after an hour without activity, or was already finished.' }),
        el('div', { class: 'actions' }, [el('button', { type: 'button', class: 'primary', text: 'Start again', onclick: restart })]),
      ]);
      return;
    }
    if (problem && problem.status === 401) {
      // The page's signature (data-auth-hash) is missing or wrong: the subscriber cannot fix that, the site's developer can.
      if (window.console) console.error('cancel-widget: ' + problem.message);
      error.textContent = 'We could not verify this request. Please reload the page, or contact support if it happens again.';
      return;
    }
    if (problem && problem.status === 429) {
      error.textContent = 'Too many attempts. Please wait a minute and try again.';
      return;
    }
    error.textContent = (problem && problem.message) || 'Something went wrong. Please try again.';
  }

  function open() {
    if (!dialog.open) dialog.showModal();
    if (finished) return;
    if (token) return load();
    restart();
  }

  function close() {
    dialog.close();
  }

  dialog.addEventListener('close', function () {
    opener.focus();
  });

  function restart() {
    finished = false;
    answers = { reason: null, sub_reason: null, free_text: null };
    show('Cancel subscription', [el('p', { text: 'Loading\u2026' })]);
    say('Loading');
    var start = { merchant_id: settings.merchant, customer_id: settings.customer, subscription_id: settings.subscription, environment: settings.environment };
    if (settings.authHash) start.auth_hash = settings.authHash;
    call('/start', start)
      .then(function (started) {
        token = started.token;
        return load();
      })
      .catch(fail);
  }

  function load() {
    return call('/' + encodeURIComponent(token))
      .then(function (state) {
        render(state.session, state.step);
      })
      .catch(fail);
  }

  function advance(stepType, response) {
    return call('/' + encodeURIComponent(token) + '/advance', { step_type: stepType, response_json: JSON.stringify(response) });
  }

  function complete(outcome) {
    var payload = { outcome: outcome, reason: answers.reason || (outcome === 'saved' ? 'kept_subscription' : 'unspecified') };
    if (answers.sub_reason) payload.sub_reason = answers.sub_reason;
    if (answers.free_text) payload.free_text = answers.free_text;
    return call('/' + encodeURIComponent(token) + '/complete', payload).then(function (result) {
      token = null;
      finished = true;
      done(outcome);
      host.dispatchEvent(new CustomEvent('cancel-flow:complete', { bubbles: true, composed: true, detail: { outcome: outcome, sessionId: result.session_id } }));
    });
  }

  function render(session, step) {
    if (!step) {
      // Every step answered without accepting an offer or keeping the subscription: the subscriber cancels.
      return complete('churned').catch(fail);
    }
    var config = JSON.parse(step.configJson);
    var stepLine = el('p', { class: 'step', text: 'Step ' + session.currentStep });
    if (step.stepType === 'survey') return renderSurvey(config, stepLine);
    if (step.stepType === 'offer') return renderOffer(config, stepLine);
    return renderConfirm(config, stepLine);
  }

  // ---------------------------------------------------------------------------------------------
  // Steps

  function radioGroup(legend, name, choices, selected, onchange) {
    return el(
      'fieldset',
      {},
      [el('legend', { text: legend })].concat(
        choices.map(function (choice) {
          return el('label', { class: 'choice' }, [
            el('input', { type: 'radio', name: name, value: choice.id, checked: choice.id === selected, onchange: onchange }),
            el('span', { text: choice.label }),
          ]);
        }),
      ),
    );
  }

  function renderSurvey(config, stepLine) {
    var reasons = config.reasons || [];
    var extras = el('div', {});
    var form = el('form', { novalidate: true });

    function selectedReason() {
      return reasons.find(function (reason) {
        return reason.id === answers.reason;
      });
    }

    function drawExtras() {
      var reason = selectedReason();
      var nodes = [];
      if (reason && reason.sub_reasons && reason.sub_reasons.length) {
        nodes.push(
          radioGroup('Tell us a little more (optional)', 'sub_reason', reason.sub_reasons, answers.sub_reason, function (event) {
            answers.sub_reason = event.target.value;
          }),
        );
      }
      if (reason && reason.free_text) {
        var fieldId = nextId('free-text');
        nodes.push(
          el('label', { class: 'text', for: fieldId, text: 'Anything else you would like to share? (optional)' }),
          el('textarea', { id: fieldId, maxlength: '2000', oninput: function (event) { answers.free_text = event.target.value.trim() || null; } }),
        );
      }
      extras.replaceChildren.apply(extras, nodes);
    }

    var group = radioGroup(config.question, 'reason', reasons, answers.reason, function (event) {
      answers.reason = event.target.value;
      answers.sub_reason = null;
      answers.free_text = null;
      error.textContent = '';
      drawExtras();
    });
    form.append(
      stepLine,
      group,
      extras,
      el('div', { class: 'actions' }, [
        el('button', { type: 'submit', class: 'primary', text: 'Continue' }),
        el('button', { type: 'button', text: 'Keep my subscription', onclick: keep }),
      ]),
    );
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!answers.reason) {
        error.textContent = 'Please choose a reason to continue.';
        var first = group.querySelector('input');
        if (first) first.focus();
        return;
      }
      busy(form, true);
      advance('survey', { reason: answers.reason, sub_reason: answers.sub_reason, free_text: answers.free_text })
        .then(load)
        .catch(function (problem) {
          busy(form, false);
          fail(problem);
        });
    });
    drawExtras();
    show('Before you go', [form]);
    say(stepLine.textContent + ': ' + config.question);

    function keep() {
      busy(form, true);
      complete('saved').catch(function (problem) {
        busy(form, false);
        fail(problem);
      });
    }
  }

  function offerTerms(offer) {
    var months = function (n) {
      return n + (n === 1 ? ' month' : ' months');
    };
    switch (offer.offer_type) {
      case 'discount':
        return offer.percent_off + '% off ' + (offer.duration_months ? 'for ' + months(offer.duration_months) : 'your next invoice');
      case 'pause':
        return 'Pause your subscription for ' + months(offer.duration_months);
      case 'downgrade':
        return 'Switch to a smaller plan';
      case 'trial_extension':
        return offer.days + (offer.days === 1 ? ' extra day' : ' extra days') + ' free';
      default:
        return '';
    }
  }

  function renderOffer(offer, stepLine) {
    var terms = offerTerms(offer);
    var container = el('div', {}, [
      stepLine,
      el('section', { class: 'offer', 'aria-labelledby': 'cfw-offer-title' }, [
        el('h3', { id: 'cfw-offer-title', text: offer.headline }),
        offer.body ? el('p', { text: offer.body }) : null,
        terms ? el('p', { class: 'terms', text: terms }) : null,
      ]),
    ]);
    var actions = el('div', { class: 'actions' }, [
      el('button', { type: 'button', class: 'primary', text: 'Accept offer', onclick: accept }),
      el('button', { type: 'button', text: 'No thanks, continue canceling', onclick: decline }),
    ]);
    container.appendChild(actions);
    show('A special offer for you', [container]);
    say('Offer: ' + offer.headline + (terms ? '. ' + terms : ''));

    function accept() {
      busy(container, true);
      var accepted = { offer_type: offer.offer_type };
      advance('offer', { accepted_offer: accepted })
        .then(function () {
          return complete('saved');
        })
        .catch(function (problem) {
          busy(container, false);
          fail(problem);
        });
    }

    function decline() {
      busy(container, true);
      advance('offer', { accepted_offer: null })
        .then(load)
        .catch(function (problem) {
          busy(container, false);
          fail(problem);
        });
    }
  }

  function renderConfirm(config, stepLine) {
    var container = el('div', {}, [
      stepLine,
      el('p', { text: config.body || 'Your subscription will end and you will not be charged again.' }),
    ]);
    container.appendChild(
      el('div', { class: 'actions' }, [
        el('button', { type: 'button', class: 'danger', text: 'Yes, cancel my subscription', onclick: confirmCancel }),
        el('button', { type: 'button', text: 'Keep my subscription', onclick: keep }),
      ]),
    );
    show(config.headline || 'Cancel your subscription?', [container]);
    say('Confirm cancellation');

    function confirmCancel() {
      busy(container, true);
      advance('confirm', { confirmed: true })
        .then(function () {
          return complete('churned');
        })
        .catch(function (problem) {
          busy(container, false);
          fail(problem);
        });
    }

    function keep() {
      busy(container, true);
      complete('saved').catch(function (problem) {
        busy(container, false);
        fail(problem);
      });
    }
  }

  function done(outcome) {
    var saved = outcome === 'saved';
    show(saved ? 'Thanks for staying!' : 'Your subscription is canceled', [
      el('p', {
        class: 'outcome',
        'data-outcome': outcome,
        text: saved ? 'Your subscription continues. We are glad to keep you.' : 'We are sorry to see you go. You will not be charged again.',
      }),
      el('div', { class: 'actions' }, [el('button', { type: 'button', class: 'primary', text: 'Close', onclick: close })]),
    ]);
    say(saved ? 'Your subscription continues.' : 'Your subscription is canceled.');
  }
})();
