// Starts Swagger UI on the service's own document. Served as a file, never inline, so that the page's
// Content-Security-Policy can allow scripts from this origin only.
window.ui = window.SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // Swagger UI would otherwise send the document to an outside validator for its badge.
  validatorUrl: null,
  // The page's "Try it out" talks to this service only, with the token given under "Authorize".
  supportedSubmitMethods: ['get', 'post'],
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
