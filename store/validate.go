package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
)

// Size limits. They keep one row (and a List page of 100 rows) bounded even
// if a model or an image returns something absurd; a Pharo method is far
// smaller than any of them.
const (
	// MaxSourceBytes bounds original_source and final_source.
	MaxSourceBytes = 1 << 20
	// MaxJSONBytes bounds each JSON document (review, verdict, stages, …).
	MaxJSONBytes = 1 << 20
	// MaxTextBytes bounds error_message and notes.
	MaxTextBytes = 64 << 10
	// MaxNameBytes bounds identifiers: id, request_id, class_name, selector,
	// error_code, original_protocol, revert_of, stage.
	MaxNameBytes = 1024
)

// checkIdentity validates what only Create writes.
func checkIdentity(r refactor.Run) error {
	switch {
	case r.ID == "":
		return fmt.Errorf("%w: empty id", ErrInvalid)
	case !r.Kind.Valid():
		return fmt.Errorf("%w: kind %q (want %q or %q)", ErrInvalid, r.Kind, refactor.RunKindRefactor, refactor.RunKindRevert)
	case (r.Kind == refactor.RunKindRevert) != (r.RevertOf != ""):
		return fmt.Errorf("%w: revert_of must be set exactly when kind is %q", ErrInvalid, refactor.RunKindRevert)
	case r.RevertOf == r.ID:
		return fmt.Errorf("%w: run %q cannot revert itself", ErrInvalid, r.ID)
	}
	return checkSizes(map[string]sized{
		"id": {len(r.ID), MaxNameBytes}, "revert_of": {len(r.RevertOf), MaxNameBytes},
	})
}

// checkRun validates every field Create and Update write.
func checkRun(r refactor.Run) error {
	if err := checkFields(r); err != nil {
		return err
	}
	if err := checkSizes(map[string]sized{
		"request_id":        {len(r.RequestID), MaxNameBytes},
		"class_name":        {len(r.ClassName), MaxNameBytes},
		"selector":          {len(r.Selector), MaxNameBytes},
		"error_code":        {len(r.ErrorCode), MaxNameBytes},
		"stage":             {len(r.Stage), MaxNameBytes},
		"worker":            {len(r.Worker), MaxNameBytes},
		"image":             {len(r.Image), MaxNameBytes},
		"original_protocol": {len(r.OriginalProtocol), MaxNameBytes},
		"error_message":     {len(r.ErrorMessage), MaxTextBytes},
		"original_source":   {len(r.OriginalSource), MaxSourceBytes},
		"final_source":      {len(r.FinalSource), MaxSourceBytes},
	}); err != nil {
		return err
	}
	return checkDocs(r)
}

func checkFields(r refactor.Run) error {
	switch {
	case r.ClassName == "":
		return fmt.Errorf("%w: empty class_name", ErrInvalid)
	case r.Selector == "":
		return fmt.Errorf("%w: empty selector", ErrInvalid)
	case !r.Status.Valid():
		return fmt.Errorf("%w: status %q", ErrInvalid, r.Status)
	case r.DryRun && r.Verify:
		return fmt.Errorf("%w: a run is a dry run or a verify run, never both", ErrInvalid)
	case !validTraceID(r.TraceID):
		return fmt.Errorf("%w: trace_id %q is not 32 lowercase hex digits", ErrInvalid, r.TraceID)
	case r.Iterations < 0 || r.ModelCalls < 0 || r.InputTokens < 0 || r.OutputTokens < 0:
		return fmt.Errorf("%w: negative count (iterations %d, model_calls %d, input_tokens %d, output_tokens %d)",
			ErrInvalid, r.Iterations, r.ModelCalls, r.InputTokens, r.OutputTokens)
	}
	return nil
}

// checkDocs checks each JSON document's size, then its syntax: a document
// the API cannot embed in its response must not get into the trail.
func checkDocs(r refactor.Run) error {
	for _, d := range docs(r) {
		if len(d.value) > MaxJSONBytes {
			return fmt.Errorf("%w: %s is %d bytes, limit %d", ErrTooLarge, d.name, len(d.value), MaxJSONBytes)
		}
		if d.value != nil && !json.Valid(d.value) {
			return fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, d.name)
		}
	}
	return nil
}

type doc struct {
	name  string
	value json.RawMessage
}

func docs(r refactor.Run) []doc {
	return []doc{{"review", r.Review}, {"verdict", r.Verdict}, {"models", r.Models},
		{"stages", r.Stages}, {"tests_before", r.TestsBefore}, {"tests_after", r.TestsAfter}, {"rounds", r.Rounds}, {"equivalence", r.Equivalence}}
}

type sized struct{ n, max int }

func checkSizes(fields map[string]sized) error {
	for name, f := range fields {
		if f.n > f.max {
			return fmt.Errorf("%w: %s is %d bytes, limit %d", ErrTooLarge, name, f.n, f.max)
		}
	}
	return nil
}

// checkSources validates BeginRelease's arguments.
func checkSources(original, protocol, final string) error {
	return checkSizes(map[string]sized{
		"original_source":   {len(original), MaxSourceBytes},
		"original_protocol": {len(protocol), MaxNameBytes},
		"final_source":      {len(final), MaxSourceBytes},
	})
}

// nullableDoc stores an absent document (nil or JSON null) as SQL NULL.
func nullableDoc(m json.RawMessage) any {
	if m == nil || bytes.Equal(bytes.TrimSpace(m), []byte("null")) {
		return nil
	}
	return string(m)
}

// helpersDoc is the helpers column: the list as JSON, NULL when empty
// (Update then keeps what the row holds). Each source is bounded like the
// method's, the list like a JSON document.
func helpersDoc(helpers []refactor.Helper) (any, error) {
	if len(helpers) == 0 {
		return nil, nil
	}
	for i, h := range helpers {
		if err := checkSizes(map[string]sized{
			fmt.Sprintf("helpers[%d].selector", i): {len(h.Selector), MaxNameBytes},
			fmt.Sprintf("helpers[%d].protocol", i): {len(h.Protocol), MaxNameBytes},
			fmt.Sprintf("helpers[%d].source", i):   {len(h.Source), MaxSourceBytes},
		}); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(helpers)
	if err != nil {
		return nil, fmt.Errorf("%w: helpers: %v", ErrInvalid, err)
	}
	if len(b) > MaxJSONBytes {
		return nil, fmt.Errorf("%w: helpers is %d bytes, limit %d", ErrTooLarge, len(b), MaxJSONBytes)
	}
	return string(b), nil
}

// releaseHelpers is helpersDoc for the write-ahead record, which
// reconciliation reads after a crash: every helper must name its selector
// and carry its source.
func releaseHelpers(helpers []refactor.Helper) (any, error) {
	for i, h := range helpers {
		if h.Selector == "" || h.Source == "" {
			return nil, fmt.Errorf("%w: helpers[%d] needs its selector and its source", ErrInvalid, i)
		}
	}
	return helpersDoc(helpers)
}

// validTraceID accepts "" (no trace) or a W3C trace id: 32 lowercase hex
// digits.
func validTraceID(id string) bool {
	if id == "" {
		return true
	}
	if len(id) != 32 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
