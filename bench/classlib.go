package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/bench/internal/measure"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/pharosim/classlib"
)

// envPharoSrc names a Pharo src checkout (Tonel) the class_library suite
// also serves, to measure pharo-sim on Pharo's own code; unset, only the
// sample image is measured.
const envPharoSrc = "BENCH_PHARO_SRC"

// classLibStarts is how many start-ups are timed on each tree.
const classLibStarts = 3

// classLibrarySuite measures the class-library index: its size, and
// pharo-sim's start-up and memory on the sample image (which reads the
// index at start-up) and on Pharo's src (which defines its own kernel and
// never reads it) when BENCH_PHARO_SRC names one.
func classLibrarySuite(e env) ([]figure, error) {
	lib := classlib.Default()
	if err := lib.Err(); err != nil {
		return nil, err
	}
	compressed, uncompressed, err := defaultIndexSizes(e.root)
	if err != nil {
		return nil, err
	}
	src := lib.Source()
	figures := []figure{
		{"classlib_index_kib", measure.Round(float64(compressed)/1024, 1), "KiB", fmt.Sprintf("the embedded index, gzip; %.1f KiB uncompressed; %d classes and traits of %s (%s@%s)",
			float64(uncompressed)/1024, lib.Len(), src.Label, src.Repository, src.Commit)},
	}
	sample := filepath.Join(e.tmp, "classlib-sample")
	if err := testenv.CopyTree(filepath.Join(e.root, "examples", "sample-image"), sample); err != nil {
		return nil, err
	}
	s, err := measureTree(e, sample, "Calculator")
	if err != nil {
		return nil, fmt.Errorf("the sample image: %w", err)
	}
	figures = append(figures,
		figure{"classlib_sample_startup_ms", measure.Millis(s.start), "ms", fmt.Sprintf("pharo-sim serve on the sample image, exec to handshake (the index read at start-up: the tree has no Object), median of %d", classLibStarts)},
		figure{"classlib_sample_rss_mb", s.rssLoad, "MiB", fmt.Sprintf("VmRSS after load, the index included; %.1f MiB after canUnderstand: calls (the first %.1f ms)", s.rssIndex, measure.Millis(s.firstCall))},
	)
	pharo := os.Getenv(envPharoSrc)
	if pharo == "" {
		fmt.Fprintf(os.Stderr, "bench: %s unset: Pharo's src not measured\n", envPharoSrc)
		return figures, nil
	}
	size, err := stBytes(pharo)
	if err != nil {
		return nil, err
	}
	p, err := measureTree(e, pharo, "Object")
	if err != nil {
		return nil, fmt.Errorf("Pharo's src: %w", err)
	}
	mib := float64(size) / (1 << 20)
	return append(figures,
		figure{"classlib_pharo_startup_ms", measure.Millis(p.start), "ms", fmt.Sprintf("pharo-sim serve on Pharo's src (%.1f MiB of .st), exec to handshake, median of %d", mib, classLibStarts)},
		figure{"classlib_pharo_rss_mb", p.rssLoad, "MiB", fmt.Sprintf("VmRSS after load: %.2f× the .st bytes (goal ≤ 2.5); %.1f MiB after canUnderstand: calls", p.rssLoad/mib, p.rssIndex)},
		figure{"classlib_pharo_rss_vs_source", measure.Round(p.rssLoad/mib, 2), "ratio", "goal ≤ 2.5"},
	), nil
}

// treeFigures are one tree's measurements.
type treeFigures struct {
	start     time.Duration
	rssLoad   float64
	rssIndex  float64
	firstCall time.Duration
}

// measureTree starts pharo-sim on dir a few times (the median start-up),
// reads the last one's RSS, asks `CLASS class canUnderstand: #compile:`
// and a few kernel questions, and reads the RSS again.
func measureTree(e env, dir, class string) (treeFigures, error) {
	var starts measure.Samples
	var out treeFigures
	for i := range classLibStarts {
		c, d, err := startSim(e.ctx, e.pharoSim, dir)
		if err != nil {
			return out, err
		}
		starts = append(starts, d)
		if i < classLibStarts-1 {
			_ = c.Close()
			continue
		}
		defer func() { _ = c.Close() }()
		if out.rssLoad, err = measure.RSSMB(c.Health().PID); err != nil {
			return out, err
		}
		began := time.Now()
		yes, err := c.Understands(e.ctx, refactor.MethodRef{Class: class, Selector: "compile:", ClassSide: true}, false)
		if err != nil {
			return out, err
		}
		out.firstCall = time.Since(began)
		if !yes {
			return out, fmt.Errorf("%s class canUnderstand: #compile: answered false", class)
		}
		for _, q := range []refactor.MethodRef{{Class: "Integer", Selector: "timesRepeat:"}, {Class: "OrderedCollection", Selector: "inject:into:"}} {
			if yes, err := c.Understands(e.ctx, q, false); err != nil || !yes {
				return out, fmt.Errorf("%s canUnderstand: #%s: %v %v", q.Class, q.Selector, yes, err)
			}
		}
		if out.rssIndex, err = measure.RSSMB(c.Health().PID); err != nil {
			return out, err
		}
	}
	slices.Sort(starts)
	out.start = starts[len(starts)/2]
	return out, nil
}

// defaultIndexSizes answers the embedded index's compressed and
// uncompressed sizes.
func defaultIndexSizes(root string) (int, int, error) {
	raw, err := os.ReadFile(filepath.Join(root, "pharosim", "classlib", "pharo13.idx.gz"))
	if err != nil {
		return 0, 0, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return 0, 0, err
	}
	n, err := io.Copy(io.Discard, zr)
	return len(raw), int(n), err
}

// stBytes is the size of every .st file under dir.
func stBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".st") {
			return err
		}
		info, err := d.Info()
		n += info.Size()
		return err
	})
	return n, err
}
