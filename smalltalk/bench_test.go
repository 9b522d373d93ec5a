package smalltalk

import "testing"

// BenchmarkParseMethod parses the realistic methods of testdata/methods.st
// (a few hundred lines); MB/s compares with other parsers.
func BenchmarkParseMethod(b *testing.B) {
	methods := corpus(b)
	total := 0
	for _, m := range methods {
		total += len(m)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, src := range methods {
			if _, err := ParseMethod(src); err != nil {
				b.Fatal(err)
			}
		}
	}
}
