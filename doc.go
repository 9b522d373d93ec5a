// Package refactor is the domain of refactord, a service that refactors
// Pharo Smalltalk methods: a client names a method, a model reviews it,
// writes a better version, validates and refines it in a bounded loop, and
// only an approved version is released into a live Pharo image, guarded by
// the method's tests and a write-ahead audit trail that makes every change
// revertible.
//
// The package sits at the bottom of the module and imports only smalltalk,
// the leaf that knows the language's name shapes:
// it holds what every other package agrees on — a method's identity and its
// one validation, the error kinds, a run's request, result and events, the
// audit row — and the interfaces of what a run needs (Image, Agents, Audit,
// History) and of what serves the API (Runner, Reservation, Jobs). The
// adapters implement those interfaces and never import each other; only
// cmd/refactord brings the concrete types together. layout_test.go holds the
// imports to that rule.
//
// # Code map of this package
//
//   - method.go: MethodRef, a method's identity, and the one validation of
//     class names and selectors; Method; comparing sources as the image
//     answers them (NormalizeSource, SameSource).
//   - errors.go: Kind, the vocabulary of failures (its value is the code
//     clients see), and Error with a public message and a private cause
//     (Errorf, Wrap, KindOf, Public). Only package api turns kinds into HTTP
//     statuses.
//   - roles.go: Agents, the four model roles of a run (review, write,
//     validate, refine), and what they take and answer: Input, Review,
//     Candidate, Verdict, CallStats.
//   - helpermethods.go: Helper, a method a Composed Method refactoring adds
//     beside the rewritten one, checked, released and reverted with it.
//   - image.go: Image, the Pharo image as a run sees it (read, dry compile,
//     compile, remove, run tests), with its compile errors, test reports and
//     health.
//   - run.go: Runner and Reservation (one run at a time), a run's Request,
//     Result, Outcome, rounds, check errors, usage, test runs and the
//     events a run streams.
//   - equivalence.go: Equivalence, what running the original and a
//     candidate side by side showed (same, changed with a Witness, or
//     not_checked), and the Comparison an Image is asked for.
//   - jobs.go: Jobs and Job, runs that outlive the request that started
//     them (start, follow, cancel).
//   - audit.go: Audit and History, the write-ahead audit trail of runs and
//     its reading; Run, the audit row, and its statuses.
//   - poolstate.go: PoolState and PoolWorker, a pool's queue and workers as
//     its database has them (GET /api/v1/workers, the console).
//   - spec.go: OpenAPI, the embedded openapi.yaml the API serves and its
//     tests hold every response to.
//
// # Code map of the module
//
// The module's code map — every folder and what it owns, which way the
// dependencies point, and a request's path file by file — is
// docs/architecture.md.
package refactor
