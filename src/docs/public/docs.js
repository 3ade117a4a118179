// The API reference: Swagger UI (served by this service from the swagger-ui-dist package) rendering
// this service's OpenAPI document. The settings come from the page's data attributes because the
// Content-Security-Policy allows no inline script.
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    domNode: root,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    deepLinking: true,
    displayRequestDuration: true,
    // The default is a badge loaded from validator.swagger.io: nothing on this page leaves its origin.
    validatorUrl: null,
    // A key typed into "Authorize" lives in this page only, never in the browser's storage.
    persistAuthorization: false,
    // Swagger UI's server choice has a heading but no label: named here for assistive technology.
    onComplete: function () {
      var servers = document.getElementById('servers');
      if (servers) servers.setAttribute('aria-label', 'Server');
    },
  });
})();
