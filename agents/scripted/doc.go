// Package scripted is an offline agents.Model: it answers from a JSON file,
// for tests, benchmarks and the demo on the sample image
// (MODEL_PROVIDER=scripted, SCRIPTED_MODEL_FILE).
//
// # File format
//
//	{
//	  "repeat": false,
//	  "answers": {
//	    "Calculator>>sum:with:": {
//	      "reviewer":  [{"json": {"severity": "MEDIUM", "summary": "…", "issues": []}}],
//	      "writer":    [{"json": {"code": "sum: a with: b\n\t^ a + b", "notes": "…"}, "delay_ms": 50}],
//	      "validator": [{"text": "{\"verdict\": \"NEEDS_IMPROVEMENT\", \"feedback\": \"…\"}"},
//	                    {"json": {"verdict": "APPROVED", "feedback": ""}}],
//	      "refiner":   [{"json": {"code": "…", "notes": "…"}}]
//	    },
//	    "Calculator class>>new": { … },
//	    "*": { … }
//	  }
//	}
//
// Keys are subjects as Pharo prints them ("Class>>selector", "Class
// class>>selector") or "*"; roles are reviewer, writer, validator, refiner.
// For a call, the list of the exact key is used when it has one for the
// role, else the list of "*".
//
// Each answer is exactly one of:
//   - "text": the answer text, verbatim (prose, fences and all — the
//     parsers' tolerance can be exercised);
//   - "json": any JSON value, sent as its compact text (saves escaping);
//   - "tool_call": {"name": "get_class_comment", "args": {"class_name": "Foo"}},
//     a function call (only the reviewer is offered tools);
//   - "error": a message; the call fails with model_unavailable;
//   - nothing, with "finish_reason": "safety" (a blocked answer) or
//     "recitation" (stopped for repeating existing text; retried once).
//
// Optional on every answer: "finish_reason" (stop, length, safety,
// recitation, other; default stop, or tool_calls for a tool call),
// "delay_ms" (the call waits
// this long first, giving up when the context ends — benchmarks and busy
// tests hold a run in flight with it, at most 10 minutes) and "usage"
// ({"input_tokens": n, "output_tokens": m}; default: about one token per
// four bytes of prompt and answer).
//
// Answers are consumed in order, one per call, with a separate cursor for
// each subject and role — also for answers taken from "*", so "*" scripts
// every method the same way. When a list is used up the call fails with
// model_unavailable naming the subject and role, unless "repeat" is true:
// then the list starts over (benchmarks run the same method many times).
//
// A Model is safe for concurrent use.
package scripted
