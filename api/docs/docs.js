// The interactive API page of refactord: Swagger UI (served from the
// binary, see scripts/swagger-ui.sh) on the service's own OpenAPI document.
// Its servers entry is relative, so "Try it out" calls this very service.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    displayRequestDuration: true,
    validatorUrl: null, // no call to an online validator: the page works offline
  });
});
