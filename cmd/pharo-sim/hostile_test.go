package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// hostileTest is a test class whose tests would each take a process
// down that ran them as Go recursion and Go allocation: recursion through
// a block, through perform:, through deepCopy of an array that holds
// itself, and allocations past the memory budget.
const hostileTest = `Class {
	#name : 'HostileTest',
	#superclass : 'TestCase',
	#category : 'Sample-Shop'
}

{ #category : 'tests' }
HostileTest >> testBlockRecursion [
	| loop |
	loop := [ :c | loop value: c ].
	loop value: 1
]

{ #category : 'tests' }
HostileTest >> testPerformRecursion [
	self perform: #testPerformRecursion
]

{ #category : 'tests' }
HostileTest >> testDeepCopyOfACycle [
	| a |
	a := Array new: 1.
	a at: 1 put: a.
	a deepCopy
]

{ #category : 'tests' }
HostileTest >> testStringDoubling [
	| s |
	s := 'ab'.
	40 timesRepeat: [ s := s , s ]
]

{ #category : 'tests' }
HostileTest >> testLargestArrays [
	| kept |
	kept := OrderedCollection new.
	64 timesRepeat: [ kept add: (Array new: (2 raisedTo: 26)) ]
]

{ #category : 'tests' }
HostileTest >> testStillRuns [
	self assert: 3 + 4 equals: 7
]
`

// rssBound is pharo-sim's documented bound on its memory: the loaded image
// plus memoryAboveImage (docs/interpreter.md, "Limits"); the sample image
// takes a few MB.
const rssBound = memoryAboveImage + 64<<20

// Smalltalk cannot kill pharo-sim: each hostile test is reported as an
// error, the one ordinary test passes, the simulator answers the next
// call, and its peak resident memory stays under the documented bound.
func TestHostileTestsCannotKillTheSimulator(t *testing.T) {
	root := testenv.SimTree(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "src", "Sample-Shop", "HostileTest.class.st"), []byte(hostileTest), 0o644))
	s := startSim(t, nil, "--dir", root)

	var report string
	s.call(t, "run_class_test", map[string]any{"class_name": "HostileTest"}).result(t, &report)
	first, _, _ := strings.Cut(report, "\r")
	assert.Equal(t, "6 ran, 1 passed, 0 skipped, 0 expected failures, 0 failures, 5 errors, 0 passed unexpected", first, report)
	for _, sel := range []string{"testBlockRecursion", "testPerformRecursion", "testDeepCopyOfACycle", "testStringDoubling", "testLargestArrays"} {
		assert.Contains(t, report, "HostileTest>>#"+sel, "reported as an error")
	}
	// The reasons are logged on stderr, which arrives apart from the answer.
	for _, reason := range []string{"the stack grew too deep", "memory budget exceeded"} {
		assert.Eventually(t, func() bool { return strings.Contains(s.stderr.String(), reason) }, 10*time.Second, 20*time.Millisecond,
			"pharo-sim logs why the tests errored: %s", reason)
	}

	var classes []string
	s.call(t, "list_classes", map[string]any{"package_name": "Sample-Shop"}).result(t, &classes)
	assert.Contains(t, classes, "HostileTest", "the simulator answers the next call")

	peak := peakRSS(t, s.process().Pid)
	t.Logf("pharo-sim's peak resident memory: %d MiB (bound %d MiB)", peak>>20, rssBound>>20)
	assert.Less(t, peak, int64(rssBound))
}

// peakRSS reads a process's peak resident memory (VmHWM) from /proc.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}
