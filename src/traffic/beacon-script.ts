/**
 * The embeddable snippet (GET /api/beacon.js), dependency-free. It:
 * - does nothing without `data-project` (no default brand);
 * - reads `data-plugins`: `+name` or `name` adds, `-name` removes, unknown names are ignored;
 *   `privacy` (on by default) sends nothing for visitors with Global Privacy Control or DNT: 1;
 *   `debug` logs the payload and the server's verdict to the console;
 * - posts one page view per page load to `/api/beacon` on the host that served the script, as
 *   `text/plain` (a simple request: no CORS preflight), with `navigator.sendBeacon` so it survives
 *   page unload (`fetch` with `keepalive` under `debug`, to read the verdict).
 */
export const BEACON_SCRIPT = `(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || window.__sightlineBeacon) return;
  var project = script.getAttribute('data-project');
  if (!project) return;
  window.__sightlineBeacon = true;
  var plugins = { privacy: true, debug: false };
  (script.getAttribute('data-plugins') || '').split(',').forEach(function (raw) {
    var name = raw.trim();
    if (!name) return;
    var on = name.charAt(0) !== '-';
    if (name.charAt(0) === '-' || name.charAt(0) === '+') name = name.slice(1);
    if (Object.prototype.hasOwnProperty.call(plugins, name)) plugins[name] = on;
  });
  var log = function () {
    if (plugins.debug && window.console) console.log.apply(console, ['[sightline]'].concat([].slice.call(arguments)));
  };
  if (plugins.privacy) {
    var gpc = navigator.globalPrivacyControl === true;
    var dnt = navigator.doNotTrack === '1' || window.doNotTrack === '1' || navigator.msDoNotTrack === '1';
    if (gpc || dnt) {
      log('not sent: the visitor asks not to be tracked (' + (gpc ? 'Global Privacy Control' : 'Do Not Track') + ')');
      return;
    }
  }
  var endpoint;
  try {
    endpoint = new URL('/api/beacon', script.src).href;
  } catch (e) {
    return;
  }
  var payload = JSON.stringify({ projectId: project, url: location.href, referrer: document.referrer || null });
  log('payload', payload, 'to', endpoint);
  if (plugins.debug && window.fetch) {
    fetch(endpoint, { method: 'POST', body: payload, headers: { 'Content-Type': 'text/plain' }, keepalive: true, credentials: 'omit' })
      .then(function (r) { return r.json(); })
      .then(function (verdict) { log('verdict', JSON.stringify(verdict)); })
      .catch(function (e) { log('failed', String(e)); });
    return;
  }
  if (navigator.sendBeacon) {
    navigator.sendBeacon(endpoint, new Blob([payload], { type: 'text/plain' }));
  } else if (window.fetch) {
    fetch(endpoint, { method: 'POST', body: payload, headers: { 'Content-Type': 'text/plain' }, keepalive: true, credentials: 'omit' });
  }
})();
`;
