package kind

// Codes of the HTTP edge: requests refused before they reach a run.
const (
	// UnsupportedMediaType: a mutating route got a body that is not
	// application/json (a browser can send text/plain cross-site without
	// asking first).
	UnsupportedMediaType Kind = "unsupported_media_type"
	// OriginNotAllowed: the request carries an Origin that is not in
	// CORS_ALLOW_ORIGINS (a web page the user happened to open).
	OriginNotAllowed Kind = "origin_not_allowed"
	// HostNotAllowed: a loopback listener got a Host header that is not a
	// loopback name or address (DNS rebinding).
	HostNotAllowed Kind = "host_not_allowed"
	// RequestTimeout: the client did not send its body within
	// READ_BODY_TIMEOUT.
	RequestTimeout Kind = "request_timeout"
)
