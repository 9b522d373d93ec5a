// Package pharorefactor holds what belongs to the repository as a whole:
// the OpenAPI document, embedded so the server serves the same bytes as
// the file at the repository root.
package pharorefactor

import _ "embed"

// OpenAPI is openapi.yaml, byte for byte.
//
//go:embed openapi.yaml
var OpenAPI []byte
