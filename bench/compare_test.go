package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
)

func TestComparisonSpreadsAndGoal(t *testing.T) {
	c := comparison{Unit: "ms", What: "x"}
	for _, r := range [][2]float64{{4, 2}, {6, 2}, {3, 3}, {9, 3}, {5, 4}} {
		c.add(r[0], r[1])
	}
	require.NoError(t, c.done(atMost(2)))
	assert.Equal(t, measure.Spread{Min: 3, Median: 5, Max: 9}, c.Value)
	assert.Equal(t, measure.Spread{Min: 2, Median: 3, Max: 4}, c.Floor)
	assert.Equal(t, measure.Spread{Min: 1, Median: 2, Max: 3}, c.Ratio, "ratios 2, 3, 1, 3, 1.25: judged round by round, not as medians divided")
	assert.Equal(t, 5, c.Rounds)
	require.NotNil(t, c.Met)
	assert.True(t, *c.Met)

	require.NoError(t, c.done(atLeast(2.5)))
	assert.False(t, *c.Met)
	require.NoError(t, c.done(nil))
	assert.Nil(t, c.Met, "no goal, no verdict")
}

func TestComparisonRefusesWhatCannotBeMeasured(t *testing.T) {
	empty := comparison{What: "nothing"}
	assert.ErrorContains(t, empty.done(nil), "no round")
	zero := comparison{What: "zero floor"}
	zero.add(1, 0)
	assert.ErrorContains(t, zero.done(nil), "cannot be divided")
}
