package pool

import (
	"encoding/json"

	refactor "pharo-refactor"
)

// decodeEvent turns a recorded event back into its type, so that the
// caller's instance sees what the worker's pipeline sent.
func decodeEvent(typ string, data []byte) refactor.Event {
	var v any
	switch typ {
	case refactor.EventStage:
		v = &refactor.StageEvent{}
	case refactor.EventModelCall:
		v = &refactor.ModelCallEvent{}
	case refactor.EventCandidate:
		v = &refactor.CandidateEvent{}
	case refactor.EventCheck:
		v = &refactor.CheckEvent{}
	case refactor.EventVerdict:
		v = &refactor.VerdictEvent{}
	case refactor.EventRelease:
		v = &refactor.ReleaseEvent{}
	case refactor.EventQueued:
		v = &refactor.QueuedEvent{}
	default:
		return refactor.Event{Type: typ, Data: json.RawMessage(data)}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return refactor.Event{Type: typ, Data: json.RawMessage(data)}
	}
	return refactor.Event{Type: typ, Data: deref(v)}
}

func deref(v any) any {
	switch e := v.(type) {
	case *refactor.StageEvent:
		return *e
	case *refactor.ModelCallEvent:
		return *e
	case *refactor.CandidateEvent:
		return *e
	case *refactor.CheckEvent:
		return *e
	case *refactor.VerdictEvent:
		return *e
	case *refactor.ReleaseEvent:
		return *e
	case *refactor.QueuedEvent:
		return *e
	}
	return v
}
