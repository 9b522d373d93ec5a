package testenv

import (
	"testing"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
)

// SumInput is what the roles get for the sample image's
// Calculator>>sum:with:, for provider tests that run the roles.
func SumInput() refactor.Input {
	return refactor.Input{
		MethodRef:       refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"},
		Source:          "sum: a with: b\n\t^ a + b",
		ClassDefinition: "Object subclass: #Calculator",
		ClassComment:    "I add numbers.",
	}
}

// FastRetry is a retry policy for tests: two retries, milliseconds apart.
func FastRetry() agents.RetryPolicy {
	return agents.RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, AttemptTimeout: 10 * time.Second}
}

// NewRoles runs every role on m, the reviewer with tools for up to rounds
// tool rounds.
func NewRoles(t testing.TB, m agents.Model, tools agents.ImageTools, rounds int) *agents.Roles {
	t.Helper()
	r, err := agents.New(agents.Config{Reviewer: m, Writer: m, Validator: m, Refiner: m, Tools: tools, MaxToolRounds: rounds})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
