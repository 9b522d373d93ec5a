package udiff

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{name: "equal", a: "x\ny", b: "x\ny", want: ""},
		{name: "both empty", a: "", b: "", want: ""},
		{
			name: "one line changed",
			a:    "sum: a with: b\n\n\t^ a + b",
			b:    "sum: aNumber with: anotherNumber\n\n\t^ aNumber + anotherNumber",
			want: "--- A\n+++ B\n@@ -1,3 +1,3 @@\n-sum: a with: b\n+sum: aNumber with: anotherNumber\n \n-\t^ a + b\n+\t^ aNumber + anotherNumber\n",
		},
		{
			name: "from nothing",
			a:    "",
			b:    "x\ny",
			want: "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+x\n+y\n",
		},
		{
			name: "to nothing",
			a:    "x",
			b:    "",
			want: "--- A\n+++ B\n@@ -1 +0,0 @@\n-x\n",
		},
		{
			name: "context is three lines",
			a:    "1\n2\n3\n4\n5\n6\n7\n8\n9",
			b:    "1\n2\n3\n4\nfive\n6\n7\n8\n9",
			want: "--- A\n+++ B\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			name: "distant changes make two hunks",
			a:    "a\n1\n2\n3\n4\n5\n6\n7\nb",
			b:    "A\n1\n2\n3\n4\n5\n6\n7\nB",
			want: "--- A\n+++ B\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n",
		},
		{
			name: "changes six lines apart share a hunk",
			a:    "a\n1\n2\n3\n4\n5\n6\nb",
			b:    "A\n1\n2\n3\n4\n5\n6\nB",
			want: "--- A\n+++ B\n@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n",
		},
		{
			name: "insertion in the middle",
			a:    "a\nb\nc",
			b:    "a\nb\nnew\nc",
			want: "--- A\n+++ B\n@@ -1,3 +1,4 @@\n a\n b\n+new\n c\n",
		},
		{
			name: "trailing newline is not a line",
			a:    "a\n",
			b:    "a",
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Unified("A", "B", tt.a, tt.b, 3))
		})
	}
}

// TestEditsReproduceBothSides: on random texts over a small alphabet (many
// repeats, the hard case), the script's kept and deleted lines are a, its
// kept and inserted lines are b, and it is no longer than the trivial one.
func TestEditsReproduceBothSides(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		a, b := randomLines(rng), randomLines(rng)
		edits := Edits(a, b)
		var gotA, gotB []string
		changes := 0
		for _, e := range edits {
			if e.Kind != Insert {
				gotA = append(gotA, e.Text)
			}
			if e.Kind != Delete {
				gotB = append(gotB, e.Text)
			}
			if e.Kind != Equal {
				changes++
			}
		}
		require.Equal(t, strings.Join(a, "|"), strings.Join(gotA, "|"), "case %d", i)
		require.Equal(t, strings.Join(b, "|"), strings.Join(gotB, "|"), "case %d", i)
		assert.LessOrEqual(t, changes, len(a)+len(b))
		assert.Equal(t, len(a)+len(b)-2*lcsLength(a, b), changes, "the script is a shortest one (case %d)", i)
	}
}

func randomLines(rng *rand.Rand) []string {
	n := rng.IntN(12)
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + rng.IntN(3)))
	}
	return out
}

// lcsLength is the textbook dynamic programme, the reference for Myers.
func lcsLength(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}
