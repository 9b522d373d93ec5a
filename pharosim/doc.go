// Package pharosim is a simulated Pharo image behind the MCP tool surface of
// pharo-smalltalk-interop-mcp-server: the same tools, argument names, result
// shapes and error texts as the real chain (MCP server → image), as written
// down in docs/pharo-interop.md. A service talking to it over stdio cannot tell
// the difference, so switching to a real image is only configuration.
//
// # The image
//
// [LoadImage] reads a Tonel tree (see smalltalk/tonel: only folders holding
// a package.st are packages) into memory: packages, classes and traits with
// their definitions, extensions, and methods with protocol and side. The
// files are the image's only state. Every change — `compile:classified:`,
// `compile:`, `removeSelector:` sent through eval — edits only the text of
// the method concerned and is written through at once with an atomic write
// (temporary file, fsync, rename, directory fsync), so a process killed at
// any moment leaves each file either old or new, never torn. Sources leave
// the simulator with CR line endings, as a real image's do; on disk they
// keep Tonel's LF.
//
// A file that cannot be read (bad Tonel, a class defined twice, an I/O
// error) is left out and the rest of the tree is served: each such file is
// logged on stderr with its line and reason, named in the MCP handshake's
// instructions, and listed by get_settings ([Image.Skipped]).
//
// Edits made to the files on disk while the simulator runs (by a person, by
// a test) are edits of the image. On Linux the package folders are watched
// (inotify): the kernel queues every change as it happens and each tool
// call takes the queue in first, so even a search sees an edit made just
// before it. A read also checks its class's files by size, time and inode;
// a compile or remove reads the class's files again whatever their stamps
// say, so it never writes a stale copy over an edit. Where no watch is
// available, a search checks every file. New files in a package folder
// join the image, deleted ones leave it, a file that stops parsing is
// skipped until it parses again. New package folders need a restart.
//
// At image scale (Pharo 13's own tree holds 93,000 methods): each file's
// text is held once and each method is a 40-byte record of offsets into
// it; search_implementors, search_references and search_references_to_class
// answer from posting lists kept up to date on every compile, remove and
// reload (a changed method is re-indexed, an unchanged one is not touched),
// so a search costs what it finds. Loading parses every method once, on
// every core. make bench measures all of this on a generated 100,000-method
// tree.
//
// # Tools
//
// [Server] registers every tool of the contract table: eval,
// get_method_source (is_class_method, or "Foo class" as class_name),
// get_class_source (the class as Tonel text), get_class_comment,
// search_classes_like, search_methods_like, search_traits_like,
// search_implementors, search_references (selectors sent and symbols used,
// found by the Smalltalk parser), search_references_to_class, list_packages,
// list_classes, list_extended_classes, list_methods, run_class_test and
// run_package_test. get_settings answers the simulator's own state, having
// no UI settings: {"pharo_sim": {"server", "root", "packages", "classes",
// "methods", "watching_disk", "skipped_files": [{"file", "line", "column",
// "reason"}]}}. export_package, import_package, install_project,
// read_screen and apply_settings are declared with their real arguments and
// answer success false ("not supported by pharo-sim").
//
// Every tool answers a JSON object as text content and as structured
// content, like FastMCP: {"success": true, "result": …}, or
// {"success": false, "error": {"description", "stack_trace", "receiver"}}
// when the image raised. Missing classes and methods use the image's texts:
// "KeyNotFound: key #Foo not found in SystemDictionary", "… in
// MethodDictionary". MCP-level errors (isError) are reserved for arguments
// that fail validation, as with FastMCP.
//
// # eval
//
// eval parses the code (smalltalk.ParseExpression) and understands exactly
// the expression shapes the service sends (docs/pharo-interop.md, and
// mcpclient/expr.go), with CLS either `(Smalltalk globals at: #Foo)` or
// `(Smalltalk globals at: #Foo) class`: reading a protocol, the dry compile
// (answers 'OK' or 'ERR|<position>|<message>': syntax errors from the
// parser, then undeclared variables and stores into arguments, as Pharo
// 12/13 report them; nothing is installed), `compile:classified:` and
// `compile:` (answer the selector, install and write through; as in Pharo,
// only a syntax error stops an install, an undeclared variable does not),
// the checked remove `| had | had := CLS includesSelector: #sel. CLS
// removeSelector: #sel. had` (answers whether the method was there),
// `Smalltalk globals includesKey:`, and the test gate's question
// `| c t | c := Smalltalk globals at: #Foo ifAbsent: [ nil ]. t := Smalltalk
// globals at: #TestCase ifAbsent: [ nil ]. (c notNil and: [ t notNil and:
// [ c isClass and: [ c inheritsFrom: t ] ] ])` (true when the class's
// superclass chain in the tree reaches TestCase, ParametrizedTestCase or
// ClassTestCase). A bare `CLS removeSelector: #sel` removes the method and
// answers as the real server does for a result it cannot serialize (Pharo
// 12/13 answer the class): success true, an error whose description is
// `Result is a Foo class instance which cannot be serialized as JSON`, and
// no result. A syntax error in the eval'd code itself answers a
// `CodeError:…` description; any other expression answers success false
// with a description saying the simulator does not evaluate arbitrary
// Smalltalk.
//
// # Calls, one at a time, within a time limit
//
// As the real MCP server, the simulator serves one tool call at a time (a
// quick call waits behind a running test; the wait does not count against
// its limit) and gives each call a time limit, 30 s by default like the
// server's HTTP client (--call-limit, PHARO_SIM_CALL_LIMIT). A call over it
// answers {"success": false, "error": "Connection error: timed out"} and is
// stopped (a real image may go on running it).
//
// # Tests
//
// run_class_test and run_package_test run a test class on the interpreter
// (package interp; docs/interpreter.md) unless the oracle declares the
// class: then the oracle decides, as below. A run that uses up a test's
// step budget or the call's time limit, or that reaches for what the
// kernel lacks (files, network, processes, UI, the clock), errors that
// test; pharo-sim logs why.
//
// # Test oracle
//
// For the classes it declares — the fault scenarios (durations, hangs) and
// trees written before the interpreter — run_class_test and
// run_package_test answer from an oracle, a JSON file given with
// --test-oracle, else test-oracle.json
// found in the --dir folder, in the folder holding the packages, or in its
// parent. It maps each TestCase class to its tests and to rules judged
// against the image's CURRENT sources, so a compile can flip a test:
//
//	{
//	  "_comment": "top-level keys starting with _ are comments",
//	  "CalculatorTest": {
//	    "tests": ["testSum", "testDivide", "testKnownBug"],
//	    "rules": [
//	      {"test": "testSum", "fails_when": {"method": "Calculator>>sum:with:", "source_contains": "-"}},
//	      {"test": "testDivide", "errors_when": {"method": "Calculator>>divide:by:", "source_not_matches": "isZero|= *0"}},
//	      {"test": "testSum", "hangs_when": {"method": "Calculator>>sum:with:", "source_contains": "whileTrue"}}
//	    ],
//	    "skipped": [],
//	    "expected_failures": ["testKnownBug"],
//	    "duration": "2s"
//	  }
//	}
//
// A condition names a method ("Class>>selector" or "Class class>>selector")
// and holds when all of its predicates hold on that method's source (LF line
// endings): source_contains, source_not_contains, source_matches,
// source_not_matches (the last two are Go regular expressions). A test
// errors when one of its errors_when conditions holds, or when a method a
// rule names is absent (as a MessageNotUnderstood would); else it fails when
// one of its fails_when conditions holds; else it passes. A test whose
// hangs_when condition holds never finishes: the run lasts until the call's
// time limit cuts it. Class entries and rules may carry a "_comment". Tests
// listed in skipped do not run; tests in expected_failures count as expected
// failures when they fail and as "passed unexpected" when they pass.
// duration (a Go duration) is how long a run of the class takes. Unknown
// fields are errors, so a misspelt rule cannot silently pass.
//
// The answer is the text the real server sends, SUnit's TestResult printed
// with fileOutOn:: `<n> ran, <p> passed, <s> skipped, <x> expected
// failures, <f> failures, <e> errors, <u> passed unexpected` (each noun
// singular at 1), then CR `Failures:` CR and one test per line — the
// unexpected failures, then the unexpected passes, as SUnit's
// TestResult>>failures lists both — then CR `Errors:` CR and one per line;
// or `No tests ran` first when nothing ran (an abstract TestCase, a class
// the oracle declares with no tests). A test prints as `Class>>#selector`, or
// `Class(Super)>>#selector` when the class inherits it from Super (the
// tree's class that defines the method). run_class_test on a class that is
// not a TestCase raises MessageNotUnderstood (`Foo class>>doesNotUnderstand:
// #suite`), as on the real image; run_package_test runs the package's
// TestCases.
//
// # Fault injection
//
// For reliability tests, off unless asked (see [Faults]; flags of
// `pharo-sim serve` override the environment):
//
//	--fault-exit-after N   PHARO_SIM_EXIT_AFTER=N    exit with status 3 when tool call N+1 arrives, before answering it
//	--fault-delay D        PHARO_SIM_DELAY=D         hold every tool call for D (a Go duration) first
//	--fault-fail T=TEXT    PHARO_SIM_FAIL=T=TEXT;…   tool T answers an image error whose description is TEXT
//	--fault-unreachable    PHARO_SIM_UNREACHABLE=1   every call answers {"success": false, "error": "Connection error: …"}
//	--fault-kill-at N[:after]  PHARO_SIM_KILL_AT      SIGKILL itself when tool call N arrives (or after handling it, before answering; see [KillAt])
//	--fault-kill-marker FILE   PHARO_SIM_KILL_MARKER  fire the kill only while FILE does not exist, creating it: once across restarts
//
// (--call-limit D, PHARO_SIM_CALL_LIMIT=D, is no fault: it is the real
// server's per-call limit, 30 s unless set; see above.)
//
// Logs go to the logger given in [Options] (stderr in pharo-sim); stdout
// carries MCP frames only.
package pharosim
