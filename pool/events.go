package pool

import (
	"encoding/json"

	refactor "github.com/pharo-refactor/refactord"
)

// eventTypes decode each recorded event into its type, so that the
// caller's instance sees what the worker's pipeline sent.
func eventTypes() map[string]func([]byte) (any, error) {
	return map[string]func([]byte) (any, error){
		refactor.EventStage:     decodeAs[refactor.StageEvent],
		refactor.EventModelCall: decodeAs[refactor.ModelCallEvent],
		refactor.EventCandidate: decodeAs[refactor.CandidateEvent],
		refactor.EventCheck:     decodeAs[refactor.CheckEvent],
		refactor.EventVerdict:   decodeAs[refactor.VerdictEvent],
		refactor.EventRelease:   decodeAs[refactor.ReleaseEvent],
		refactor.EventQueued:    decodeAs[refactor.QueuedEvent],
	}
}

func decodeAs[T any](data []byte) (any, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

// decodeEvent is a recorded event as its type; one of a type this build
// does not know, or that does not decode, is passed on as it was written.
func decodeEvent(typ string, data []byte) refactor.Event {
	if decode, ok := eventTypes()[typ]; ok {
		if v, err := decode(data); err == nil {
			return refactor.Event{Type: typ, Data: v}
		}
	}
	return refactor.Event{Type: typ, Data: json.RawMessage(data)}
}
