// Package interp evaluates Pharo Smalltalk over the smalltalk package's
// syntax trees: classes and metaclasses built from Tonel definitions,
// message sends (with super), blocks with non-local return, Pharo's
// exceptions and a kernel — Smalltalk source embedded in the package
// (kernel/*.st, in Tonel) over a small set of Go primitives — enough to run
// SUnit tests. Classes made and methods compiled while a program runs
// (prims_classes.go) live in the interpreter's memory only. Every run is bounded by a deadline (a test's budget is its
// call's time, as on Pharo), a step guard against an endless loop run
// without one, a stack depth and a memory budget: a runaway test ends as
// an error, never a hang nor the death of the process.
package interp
