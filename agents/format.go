package agents

import (
	"strconv"
	"strings"
)

// Format renders s as the one-line JSON shape the prompts ask for, e.g.
// {"verdict": "APPROVED" | "NEEDS_IMPROVEMENT", "feedback": "<…>"}: the
// prompts' answer formats come from the same schemas the providers
// constrain the answers with, so the two cannot drift apart.
func (s *Schema) Format() string {
	var b strings.Builder
	s.format(&b)
	return b.String()
}

func (s *Schema) format(b *strings.Builder) {
	switch {
	case s == nil:
		b.WriteString("null")
	case len(s.Enum) > 0:
		for i, e := range s.Enum {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(strconv.Quote(e))
		}
	case s.Type == "object":
		b.WriteString("{")
		for i, p := range s.Properties {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(p.Name) + ": ")
			p.Schema.format(b)
		}
		b.WriteString("}")
	case s.Type == "array":
		b.WriteString("[")
		s.Items.format(b)
		b.WriteString(", …]")
	case s.Type == "string":
		b.WriteString(strconv.Quote("<" + orWord(s.Description, "text") + ">"))
	default:
		b.WriteString("<" + s.Type + ">")
	}
}
