// The sign-in form posts itself (the service answers with redirects: src/accounts/sign-in-form.ts);
// this script checks for empty fields first, says why a sign-in was refused and sends the form back
// to the page it was opened at.
const form = document.getElementById('sign-in');
const error = document.getElementById('sign-in-error');
const button = form.querySelector('button[type="submit"]');

function show(message) {
  error.textContent = message;
  error.hidden = !message;
}

// Refused: the service sent the browser back here with the reason in the address.
const address = new URL(location.href);
const reason = address.searchParams.get('signIn');
const retry = Number(address.searchParams.get('retry')) || 60;
const REASONS = {
  wrong: 'Wrong email or password.',
  busy: `Too many sign-in attempts. Try again in ${retry} seconds.`,
  invalid: 'Enter a valid email address and your password.',
  refused: 'Signing in was refused: sign in from this page.',
};
address.searchParams.delete('signIn');
address.searchParams.delete('retry');
const here = `${address.pathname}${address.search}`;
if (reason) {
  history.replaceState(null, '', `${here}${address.hash}`);
  show(REASONS[reason] ?? REASONS.wrong);
  form.elements.password.focus();
}
// A deep link (/projects/...) opens where it pointed once signed in; `/` opens the first project.
form.elements.next.value = here;

form.addEventListener('submit', (event) => {
  const email = form.elements.email.value.trim();
  const password = form.elements.password.value;
  if (!email || !password) {
    event.preventDefault();
    show('Enter your email and your password.');
    (email ? form.elements.password : form.elements.email).focus();
    return;
  }
  form.elements.email.value = email;
  show('');
  button.disabled = true;
});
