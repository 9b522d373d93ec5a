// Package agents holds the four model roles of a refactoring run — reviewer,
// writer, validator and refiner — on top of a small provider-neutral Model
// interface.
//
// A role renders its prompt (prompts/*.md, embedded), asks its Model, parses
// the answer into a typed value (Review, Candidate, Verdict) and reports the
// calls and tokens it spent (CallStats). Only the final answer decides:
// reasoning blocks (<think>…) are stripped first; an answer the provider
// constrained to the schema must be the object alone; otherwise the last
// top-level JSON object counts (fences, prose around JSON, `Foo >> bar`
// prefixes and Tonel brackets are tolerated), and a verdict approves only
// when it is the whole answer (see mode, parseVerdict). An answer that is
// empty, cut off, unparseable or ambiguous is retried once with a
// corrective note, then fails with kind.ModelBadOutput.
//
// The reviewer may read the image through ImageTools, restricted to a fixed
// allowlist of read-only tools and a bounded number of rounds. Because the
// Gemini API refuses function declarations together with a JSON response
// type, a call that offers tools never asks for a response schema: the
// reviewer's prompt asks for the JSON object in text, and only a call made
// after the tool rounds are used up carries the schema.
//
// Providers (agents/gemini, agents/openai) share one HTTP retry policy
// (RetryPolicy) and one error classification (ClassifyError); the offline
// provider is agents/scripted.
package agents
