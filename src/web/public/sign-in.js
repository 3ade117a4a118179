import { api, ApiError } from './api.js';

const form = document.getElementById('sign-in');
const error = document.getElementById('sign-in-error');
const button = form.querySelector('button[type="submit"]');

function show(message) {
  error.textContent = message;
  error.hidden = !message;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const email = form.elements.email.value.trim();
  const password = form.elements.password.value;
  if (!email || !password) {
    show('Enter your email and your password.');
    (email ? form.elements.password : form.elements.email).focus();
    return;
  }
  show('');
  button.disabled = true;
  try {
    await api('/app/session', { method: 'POST', body: { email, password } });
    // A deep link (/projects/...) opens where it pointed; `/` opens the first project's overview.
    if (location.pathname !== '/') return location.reload();
    const { projects } = await api('/api/v1/projects');
    location.assign(projects.length ? `/projects/${encodeURIComponent(projects[0].id)}` : '/');
  } catch (e) {
    button.disabled = false;
    const status = e instanceof ApiError ? e.status : 0;
    if (status === 401) show('Wrong email or password.');
    else if (status === 429) show(`Too many sign-in attempts. Try again in ${e.retryAfter || 60} seconds.`);
    else if (status === 400) show('Enter a valid email address and your password.');
    else show('Signing in failed: the service could not be reached. Try again.');
    form.elements.password.value = '';
    form.elements.password.focus();
  }
});
