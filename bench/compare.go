package main

import (
	"fmt"
	"strings"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
)

// rounds is how many times each comparison is repeated: the machine is
// shared, so one round says little; the spread over several says how much
// the load of the moment moved it.
const rounds = 7

// comparison is a figure of the service beside its floor: the same kind of
// work done by the least program that can do it, measured in the same
// round, on the same machine, by the same client. Each round gives a value,
// a floor and their ratio; results carry the spread of each over the
// rounds, and the goal is judged on the median ratio.
type comparison struct {
	Unit  string         `json:"unit"`
	Value measure.Spread `json:"value"`
	Floor measure.Spread `json:"floor"`
	// Ratio is value / floor, round by round.
	Ratio   measure.Spread `json:"ratio"`
	Rounds  int            `json:"rounds"`
	Goal    string         `json:"goal,omitempty"`
	Met     *bool          `json:"met,omitempty"` // nil when there is no goal
	What    string         `json:"what"`
	FloorIs string         `json:"floor_is"`
	// Details are the figures behind the comparison (a decomposition,
	// percentiles, CPU use), each over the rounds.
	Details map[string]any `json:"details,omitempty"`

	values, floors []float64
}

// add records one round.
func (c *comparison) add(value, floor float64) {
	c.values = append(c.values, value)
	c.floors = append(c.floors, floor)
}

// done computes the spreads; met judges the median ratio (nil: no goal).
func (c *comparison) done(met func(ratio, value float64) bool) error {
	if len(c.values) == 0 {
		return fmt.Errorf("%s: no round was measured", c.What)
	}
	ratios := make([]float64, len(c.values))
	for i := range c.values {
		if c.floors[i] <= 0 {
			return fmt.Errorf("%s: a floor of %v cannot be divided by", c.What, c.floors[i])
		}
		ratios[i] = measure.Round(c.values[i]/c.floors[i], 3)
	}
	c.Value, _ = measure.SpreadOf(c.values)
	c.Floor, _ = measure.SpreadOf(c.floors)
	c.Ratio, _ = measure.SpreadOf(ratios)
	c.Rounds = len(c.values)
	c.Met = nil
	if met != nil {
		ok := met(c.Ratio.Median, c.Value.Median)
		c.Met = &ok
	}
	return nil
}

// detail records the spread of a figure behind the comparison.
func (c *comparison) detail(key string, xs []float64) {
	if c.Details == nil {
		c.Details = map[string]any{}
	}
	if s, ok := measure.SpreadOf(xs); ok {
		c.Details[key] = s
	}
}

// note records a fixed fact behind the comparison.
func (c *comparison) note(key string, v any) {
	if c.Details == nil {
		c.Details = map[string]any{}
	}
	c.Details[key] = v
}

// row is the comparison's line in the printed table.
func (c *comparison) row(key string) string {
	verdict := ""
	if c.Met != nil {
		verdict = map[bool]string{true: "met", false: "NOT MET"}[*c.Met]
	}
	return fmt.Sprintf("%-26s %s  %s  %s  %-26s %s",
		key, spreadCell(c.Value, c.Unit), spreadCell(c.Floor, c.Unit), spreadCell(c.Ratio, "×"), c.Goal, verdict)
}

// spreadCell prints a spread as "median (min–max) unit".
func spreadCell(s measure.Spread, unit string) string {
	return fmt.Sprintf("%s (%s–%s) %-5s", num(s.Median), num(s.Min), num(s.Max), unit)
}

func num(x float64) string {
	switch {
	case x >= 1000:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}

// comparisonHeader heads the table of comparisons.
func comparisonHeader() string {
	return fmt.Sprintf("%-26s %s", "comparison", strings.Join([]string{
		"value: median (min–max)", "floor: median (min–max)", "ratio: median (min–max)", "goal"}, " | "))
}

// atLeast and atMost are goals on the median ratio.
func atLeast(x float64) func(ratio, value float64) bool {
	return func(ratio, _ float64) bool { return ratio >= x }
}

func atMost(x float64) func(ratio, value float64) bool {
	return func(ratio, _ float64) bool { return ratio <= x }
}
