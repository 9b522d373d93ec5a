package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pharo-refactor/refactord/internal/version"
)

// TestVersionCommand: `refactorctl version` prints the client's version
// without asking any service (the URL points nowhere); it takes no
// arguments.
func TestVersionCommand(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"version"}, exitOK, "refactorctl " + version.Version + "\n", ""},
		{[]string{"--url", "http://127.0.0.1:1", "version"}, exitOK, "refactorctl " + version.Version + "\n", ""},
		{[]string{"version", "extra"}, exitUsage, "", "version takes no arguments"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, nil, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, tc.code, code, stderr.String())
			assert.Equal(t, tc.stdout, stdout.String())
			assert.Contains(t, stderr.String(), tc.stderr)
		})
	}
}
