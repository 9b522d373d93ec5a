package refactor

import _ "embed"

// OpenAPI is openapi.yaml, the API's contract, byte for byte: embedded so
// the server serves the same bytes as the file at the repository root.
//
//go:embed openapi.yaml
var OpenAPI []byte
