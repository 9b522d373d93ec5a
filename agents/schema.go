package agents

import refactor "github.com/pharo-refactor/refactord"

// Schema is the small subset of JSON Schema both providers can express: the
// Gemini API's OpenAPI-style schema and OpenAI's json_schema.
type Schema struct {
	// Type is "object", "array", "string", "boolean", "integer" or "number".
	Type        string
	Description string
	// Properties keeps declaration order, which Gemini honours when it
	// writes the object (so "code" comes before "notes").
	Properties []Property
	Required   []string
	Items      *Schema
	Enum       []string
}

// Property is one named field of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// AllRequired reports whether every property of every object in s is
// required, which OpenAI's strict structured outputs demand.
func (s *Schema) AllRequired() bool {
	if s == nil {
		return true
	}
	if s.Items != nil && !s.Items.AllRequired() {
		return false
	}
	if len(s.Required) != len(s.Properties) {
		return false
	}
	for _, p := range s.Properties {
		if !p.Schema.AllRequired() {
			return false
		}
	}
	return true
}

// JSONSchema renders s as a JSON Schema document. When closed is true every
// object gets "additionalProperties": false (OpenAI strict mode needs it).
func (s *Schema) JSONSchema(closed bool) map[string]any {
	if s == nil {
		return nil
	}
	out := map[string]any{"type": s.Type}
	if s.Description != "" {
		out["description"] = s.Description
	}
	if len(s.Enum) > 0 {
		out["enum"] = append([]string(nil), s.Enum...)
	}
	if s.Items != nil {
		out["items"] = s.Items.JSONSchema(closed)
	}
	if s.Type != "object" {
		return out
	}
	props := make(map[string]any, len(s.Properties))
	for _, p := range s.Properties {
		props[p.Name] = p.Schema.JSONSchema(closed)
	}
	out["properties"] = props
	if len(s.Required) > 0 {
		out["required"] = append([]string(nil), s.Required...)
	}
	if closed {
		out["additionalProperties"] = false
	}
	return out
}

func str(desc string) *Schema { return &Schema{Type: "string", Description: desc} }

// object builds an object schema whose properties are all required.
func object(desc string, props ...Property) *Schema {
	s := &Schema{Type: "object", Description: desc, Properties: props}
	for _, p := range props {
		s.Required = append(s.Required, p.Name)
	}
	return s
}

func issuesSchema() *Schema {
	return &Schema{Type: "array", Items: object("",
		Property{"principle", str("the principle or practice concerned")},
		Property{"problem", str("what is wrong, concretely")},
		Property{"suggestion", str("how to fix it")},
	)}
}

// ReviewSchema is the reviewer's answer: {"severity", "summary", "issues"}.
func ReviewSchema() *Schema {
	return object("a review of one Smalltalk method",
		Property{"severity", &Schema{Type: "string", Enum: []string{string(refactor.SeverityLow), string(refactor.SeverityMedium), string(refactor.SeverityHigh)}}},
		Property{"summary", str("one or two sentences")},
		Property{"issues", issuesSchema()},
	)
}

// CandidateSchema is the writer's and refiner's answer: {"code",
// "helpers", "notes"}; helpers are the new methods the rewrite sends
// (Composed Method), an empty list when it needs none.
func CandidateSchema() *Schema {
	return object("a rewritten Smalltalk method, with the new helper methods it sends",
		Property{"code", str("the whole method, starting with its message pattern")},
		Property{"helpers", &Schema{Type: "array", Items: object("",
			Property{"code", str("a whole new helper method of the same class and side, starting with its message pattern")},
			Property{"protocol", str("its protocol, e.g. private")},
		)}},
		Property{"notes", str("what changed and why, briefly")},
	)
}

// VerdictSchema is the validator's answer: {"verdict", "feedback", "issues"}.
func VerdictSchema() *Schema {
	return object("a verdict on a rewritten Smalltalk method",
		Property{"verdict", &Schema{Type: "string", Enum: []string{string(refactor.VerdictApproved), string(refactor.VerdictNeedsImprovement)}}},
		Property{"feedback", str("what must change before approval; empty when approved")},
		Property{"issues", issuesSchema()},
	)
}
