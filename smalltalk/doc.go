// Package smalltalk reads Pharo method source the way Pharo's RBParser does:
// a hand-written scanner and recursive-descent parser producing a small AST
// with byte offsets, plus the checks the refactoring pipeline runs on
// model-written code before it ever reaches the image.
//
// Entry points:
//
//   - [ParseMethod] parses a whole method (pattern, pragmas, temporaries,
//     statements); [ParseExpression] parses a "doIt" (temporaries and
//     statements, no pattern), as the simulated image does with eval'd code.
//   - [Analyze] / [Method.Info] summarise what a method declares, references,
//     assigns, sends and mentions as symbols.
//   - [CheckSelector], [ArgumentAssignments] and [Undeclared] are the local
//     checks of the validation loop.
//   - [IsClassName], [IsSelector], [NumArgs], [QuoteString] and [QuoteSymbol]
//     validate names and build literals for the Smalltalk expressions the
//     service sends to the image.
//   - [ClosingBracket], [QuoteEnd], [CharLiteralEnd] and [BinaryCharLen]
//     expose the scanner to readers that only need to know where a piece of
//     Smalltalk ends: the Tonel reader delimiting method bodies and the
//     agents cutting a model's answer out of its brackets.
//
// Errors are [*SyntaxError] values whose messages use Pharo's own words where
// Pharo has them ("')' expected", "End of statement expected", …), so that the
// model gets the feedback the image would give; a few ("Argument name
// expected", "Character expected", the byte array message) follow the
// service's own contract.
//
// What Pharo compiles but flags is not an error: statements after a return
// come back as [Method.Warnings] (and [Info.Warnings], [Info.Unreachable]),
// so that a check may still refuse a candidate that adds them. Pharo 13's
// non-ASCII binary selector characters (± × ÷ ·) and binary pragmas
// (`<+ 1>`) are read as Pharo reads them.
//
// The parser never panics on any input and bounds its recursion depth.
package smalltalk
