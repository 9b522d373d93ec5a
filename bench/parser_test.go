package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPharoCommentShare(t *testing.T) {
	tests := []struct {
		name    string
		methods []string
		want    float64
	}{
		{"none", []string{"foo ^ 1"}, 0},
		{"a comment", []string{`a "xy" b`}, 4.0 / 8},
		{"quotes inside a string are not a comment", []string{`a '"x"' b`}, 0},
		{"a doubled quote does not end a string", []string{`a 'it''s "no"' "yes"`}, 5.0 / 20},
		{"a quote character", []string{`a $" b "c"`}, 3.0 / 10},
		{"unterminated", []string{`a "bc`}, 3.0 / 5},
		{"over several methods", []string{`"ab"`, `cdef`}, 4.0 / 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, pharoCommentShare(tt.methods), 1e-9)
		})
	}
}

func TestGoCommentShare(t *testing.T) {
	src := "package p\n// ab\nvar x = \"// not\" /* c */\n"
	assert.InDelta(t, float64(len("// ab")+len("/* c */"))/float64(len(src)), goCommentShare([]string{src}), 1e-9)
}
