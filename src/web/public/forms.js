// The settings' forms and buttons: a change sent with the session's CSRF token, what a refusal
// says in the form that made it, a two-step button for what cannot be undone, and a secret shown
// once with a copy button.
import { api, ApiError } from './api.js';
import { currentSession, status } from './shell.js';
import { $, h } from './ui.js';

/** A change to the management API, carrying the session's CSRF token. */
export const change = (path, method, body, contentType) => api(path, { method, body, contentType, csrf: currentSession().csrfToken });

/** What a refused change says, in the form that made it. */
export function say(form, error) {
  if (error instanceof ApiError && error.status === 401) return location.reload();
  const node = form.querySelector('.form-error');
  node.textContent =
    error instanceof ApiError && error.status === 403 ? `Refused: ${error.message}.` : error instanceof ApiError && error.status === 400 ? `Not saved: ${error.message}.` : `Not saved: ${error.message}`;
  node.hidden = false;
}

/** A form's submit: the handler runs with the button held; what fails is said in the form. */
export function onSubmit(form, handler) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = form.querySelector('.form-error');
    error.hidden = true;
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      await handler(form.elements);
    } catch (e) {
      say(form, e);
    } finally {
      button.disabled = false;
    }
  });
}

/** A button that asks again before it acts: the first press arms it, a second within 5 s acts. */
export function confirmButton(label, confirmLabel, accessibleName, act) {
  const button = h('button', { type: 'button', class: 'danger', 'aria-label': accessibleName }, label);
  let timer = null;
  button.addEventListener('click', async () => {
    if (!button.classList.contains('confirm')) {
      button.classList.add('confirm');
      button.textContent = confirmLabel;
      button.setAttribute('aria-label', `${confirmLabel}: ${accessibleName}`);
      timer = setTimeout(() => {
        button.classList.remove('confirm');
        button.textContent = label;
        button.setAttribute('aria-label', accessibleName);
      }, 5000);
      return;
    }
    clearTimeout(timer);
    button.disabled = true;
    try {
      await act();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return location.reload();
      button.disabled = false;
      status(`${accessibleName} failed: ${error.message}`, 'error');
    }
  });
  return button;
}

/** Shows a secret given once, with a copy button (and what to do where the clipboard is closed). */
export function showSecret(prefix, secret) {
  $(`${prefix}-secret-value`).textContent = secret;
  $(`${prefix}-secret`).hidden = false;
  $(`copy-${prefix}-done`).textContent = '';
  // Where the eyes and the keyboard are next: the secret and its copy button.
  $(`${prefix}-secret`).scrollIntoView({ block: 'nearest' });
  $(`copy-${prefix}`).focus();
}

export function bindCopy(prefix) {
  $(`copy-${prefix}`).addEventListener('click', async () => {
    const value = $(`${prefix}-secret-value`).textContent;
    try {
      await navigator.clipboard.writeText(value);
      $(`copy-${prefix}-done`).textContent = 'Copied.';
    } catch {
      getSelection().selectAllChildren($(`${prefix}-secret-value`));
      $(`copy-${prefix}-done`).textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  });
}

/** A colour picker that saves the colour picked (on `change`, when the picker closes); a failure is said in the status line. */
export function colorInput(label, color, save) {
  // A colour picker takes #rrggbb only: a stored #rgb is spelled out (#1af is #11aaff), not shown black.
  const full = color && /^#[0-9a-f]{3}$/i.test(color) ? `#${[...color.slice(1)].map((c) => c + c).join('')}` : color;
  const input = h('input', { type: 'color', class: 'color-input', value: full ?? '#94a3b8', 'aria-label': label });
  input.addEventListener('change', async () => {
    input.disabled = true;
    try {
      await save(input.value);
      status(`${label}: saved.`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return location.reload();
      status(`${label} was not saved: ${error.message}`, 'error');
    } finally {
      input.disabled = false;
    }
  });
  return input;
}
