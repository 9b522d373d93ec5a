// Package version holds the release's version, the one place refactord,
// refactorctl, openapi.yaml (checked by a test) and the container image's
// tag take it from.
package version

// Version is the release this source tree is. A build may stamp another
// (a pre-release, a commit) with
//
//	go build -ldflags "-X github.com/pharo-refactor/refactord/internal/version.Version=1.1.0-rc.1"
//
// which is why it is a variable: the linker can set only a string
// variable, never a constant. Nothing in the program assigns it.
var Version = "1.0.0"
