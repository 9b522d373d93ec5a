package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// The row keeps every round when they fit the audit trail's bound on a
// document, else the last ones that fit, else none: never a document the
// store would refuse, which would cost the whole row.
func TestRoundsDocFitsTheRow(t *testing.T) {
	t.Parallel()
	round := func(i, size int) refactor.Round {
		return refactor.Round{Iteration: i, Code: strings.Repeat("x", size), Helpers: []refactor.Helper{}, CheckErrors: []refactor.CheckError{}}
	}
	third := maxRoundsBytes/3 - 200 // three fit with their keys, four do not
	for _, tc := range []struct {
		name   string
		rounds []refactor.Round
		want   []int // the iterations kept; nil: no document
	}{
		{"none", nil, nil},
		{"small", []refactor.Round{round(1, 10), round(2, 10)}, []int{1, 2}},
		{"the last that fit", []refactor.Round{round(1, third), round(2, third), round(3, third), round(4, third)}, []int{2, 3, 4}},
		{"the last alone too large", []refactor.Round{round(1, 10), round(2, maxRoundsBytes)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{log: zap.NewNop()}
			doc := r.roundsDoc(tc.rounds)
			if tc.want == nil {
				assert.Nil(t, doc)
				return
			}
			assert.LessOrEqual(t, len(doc), maxRoundsBytes)
			var back []refactor.Round
			require.NoError(t, json.Unmarshal(doc, &back))
			var got []int
			for _, b := range back {
				got = append(got, b.Iteration)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
