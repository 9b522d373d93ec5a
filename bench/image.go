package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/bench/internal/measure"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

const (
	imageMethods      = 100_000
	imageSeed         = 16
	imageStarts       = 3   // pharo-sim start-ups timed
	imageCallWarmup   = 50  // calls of each tool before timing
	imageCalls        = 500 // timed calls of each tool
	imagePipelineRuns = 100 // full runs on each image
)

// imageSuite measures pharo-sim and the service on an image the size of
// Pharo's own, generated (imagegen.go): start-up, memory, the latency of the
// tools the service uses, and a full pipeline run's overhead next to the
// sample image's.
func imageSuite(e env) ([]figure, error) {
	dir := filepath.Join(e.tmp, "image-100k")
	began := time.Now()
	st, err := generateImage(dir, genConfig{methods: imageMethods, seed: imageSeed})
	if err != nil {
		return nil, fmt.Errorf("generating the image: %w", err)
	}
	// The sample package joins it, so that the pipeline refactors the
	// same method with the same scripted model as in the service suite.
	sample := filepath.Join(e.root, "examples", "sample-image")
	if err := testenv.CopyTree(filepath.Join(sample, "src", "Sample-Shop"), filepath.Join(dir, "src", "Sample-Shop")); err != nil {
		return nil, err
	}
	if err := testenv.CopyTree(filepath.Join(sample, "test-oracle.json"), filepath.Join(dir, "test-oracle.json")); err != nil {
		return nil, err
	}
	tree, err := tonel.ReadTree(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the generated image: %w", err)
	}
	source := treeBytes(tree)
	methods := len(allMethods(tree))
	fmt.Fprintf(os.Stderr, "bench: generated %d methods in %d classes, %d packages, %.1f MB, in %s\n",
		methods, st.Classes, st.Packages, float64(source)/1e6, time.Since(began).Round(time.Millisecond))

	sim, err := measureSim(e, dir, tree, source)
	if err != nil {
		return nil, err
	}
	pipe, err := measurePipelines(e, dir)
	if err != nil {
		return nil, err
	}
	treeNote := fmt.Sprintf("generated tree: %d methods, %d classes (largest %d methods), %d packages, %d files, %.1f MB of Tonel",
		methods, st.Classes, st.LargestClass, st.Packages, st.Files, float64(source)/1e6)
	return append(append([]figure{{"image_methods", methods, "count", treeNote}}, sim...), pipe...), nil
}

// treeBytes is the size of every file of the tree.
func treeBytes(tree *tonel.Tree) int64 {
	var n int64
	for _, f := range tree.Files() {
		n += int64(len(f.Bytes()))
	}
	return n
}

// allMethods lists every method of the tree as a reference.
func allMethods(tree *tonel.Tree) []refactor.MethodRef {
	var out []refactor.MethodRef
	for _, f := range tree.Files() {
		for _, m := range f.Methods {
			out = append(out, refactor.MethodRef{Class: f.Def.Name, Selector: m.Selector, ClassSide: m.Side == tonel.ClassSide})
		}
	}
	return out
}

// measureSim starts pharo-sim on the tree a few times, then times the
// tools the service calls most.
func measureSim(e env, dir string, tree *tonel.Tree, source int64) ([]figure, error) {
	var starts measure.Samples
	var c *mcpclient.Client
	var rssLoad float64
	for i := range imageStarts {
		client, d, err := startSim(e.ctx, e.pharoSim, dir)
		if err != nil {
			return nil, err
		}
		starts = append(starts, d)
		if i < imageStarts-1 {
			_ = client.Close()
			continue
		}
		c = client
		if rssLoad, err = measure.RSSMB(client.Health().PID); err != nil {
			_ = client.Close()
			return nil, fmt.Errorf("reading pharo-sim's RSS: %w", err)
		}
	}
	defer func() { _ = c.Close() }()

	refs := allMethods(tree)
	selectors := distinctSelectors(refs)
	r := rand.New(rand.NewSource(imageSeed))
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Minute)
	defer cancel()
	srcLat, err := timeCalls(r, len(refs), func(i int) error {
		_, err := c.MethodSource(ctx, refs[i])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get_method_source: %w", err)
	}
	impl, err := timeCalls(r, len(selectors), func(i int) error {
		_, err := c.Implementors(ctx, selectors[i])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search_implementors: %w", err)
	}
	sends, err := timeCalls(r, len(selectors), func(i int) error {
		_, err := c.References(ctx, selectors[i])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search_references: %w", err)
	}
	worstSel, worst, worstCount, err := timeMostReferenced(ctx, c, tree)
	if err != nil {
		return nil, err
	}
	rssAfter, err := measure.RSSMB(c.Health().PID)
	if err != nil {
		return nil, fmt.Errorf("reading pharo-sim's RSS: %w", err)
	}

	s, _ := measure.Summarize(starts)
	mib := float64(source) / (1 << 20)
	ms, _ := measure.Summarize(srcLat)
	mi, _ := measure.Summarize(impl)
	mr, _ := measure.Summarize(sends)
	sampled := fmt.Sprintf("%d calls through mcpclient after %d warm-up", imageCalls, imageCallWarmup)
	return []figure{
		{"image_sim_startup_ms", measure.Millis(s.P50), "ms", fmt.Sprintf("pharo-sim serve from exec to the MCP handshake answered, median of %d (min %.0f ms, max %.0f ms)", s.N, measure.Millis(slices.Min(starts)), measure.Millis(s.Max))},
		{"image_sim_rss_mb", rssLoad, "MiB", fmt.Sprintf("VmRSS after load: %.2f× the tree's %.1f MiB of source; %.1f MiB after the timed calls below", rssLoad/mib, mib, rssAfter)},
		{"image_sim_rss_vs_source", measure.Round(rssLoad/mib, 2), "ratio", "goal ≤ 2.5"},
		{"image_method_source_p50_ms", measure.Millis(ms.P50), "ms", fmt.Sprintf("get_method_source of random methods, %s; p99 %.2f ms", sampled, measure.Millis(ms.P99))},
		{"image_method_source_p99_ms", measure.Millis(ms.P99), "ms", ""},
		{"image_implementors_p50_ms", measure.Millis(mi.P50), "ms", fmt.Sprintf("search_implementors of random selectors of the image (%d distinct), %s; goal ≤ 5", len(selectors), sampled)},
		{"image_implementors_p99_ms", measure.Millis(mi.P99), "ms", fmt.Sprintf("max %.2f ms", measure.Millis(mi.Max))},
		{"image_references_p50_ms", measure.Millis(mr.P50), "ms", fmt.Sprintf("search_references of the same random selectors, %s; goal ≤ 5", sampled)},
		{"image_references_p99_ms", measure.Millis(mr.P99), "ms", fmt.Sprintf("max %.2f ms", measure.Millis(mr.Max))},
		{"image_references_worst_ms", measure.Millis(worst), "ms", fmt.Sprintf("search_references of #%s, the most sent selector: %d methods in one answer (cost follows the matches)", worstSel, worstCount)},
	}, nil
}

// startSim starts pharo-sim through mcpclient and answers how long the
// start took: exec, loading the tree, the MCP handshake and tools/list.
func startSim(ctx context.Context, pharoSim, dir string) (*mcpclient.Client, time.Duration, error) {
	c, err := mcpclient.New(mcpclient.Config{Command: pharoSim, Args: []string{"serve", "--dir", dir, "--log-level", "warn"},
		StopGrace: time.Second, StartTimeout: 2 * time.Minute})
	if err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	began := time.Now()
	if err := c.Start(ctx); err != nil {
		_ = c.Close()
		return nil, 0, fmt.Errorf("starting pharo-sim on the generated image: %w", err)
	}
	return c, time.Since(began), nil
}

// distinctSelectors lists the selectors the image implements, sorted.
func distinctSelectors(refs []refactor.MethodRef) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		if !seen[r.Selector] {
			seen[r.Selector] = true
			out = append(out, r.Selector)
		}
	}
	sort.Strings(out)
	return out
}

// timeCalls calls call with random indexes below n: warm-up calls, then
// the timed ones.
func timeCalls(r *rand.Rand, n int, call func(i int) error) (measure.Samples, error) {
	lat := make(measure.Samples, 0, imageCalls)
	for i := range imageCallWarmup + imageCalls {
		k := r.Intn(n)
		start := time.Now()
		if err := call(k); err != nil {
			return nil, err
		}
		if i >= imageCallWarmup {
			lat = append(lat, time.Since(start))
		}
	}
	return lat, nil
}

// timeMostReferenced times search_references of the selector most methods
// send: the largest answer a search gives on this image.
func timeMostReferenced(ctx context.Context, c *mcpclient.Client, tree *tonel.Tree) (string, time.Duration, int, error) {
	sel := mostSent(tree)
	var best time.Duration
	count := 0
	for range 5 {
		start := time.Now()
		locs, err := c.References(ctx, sel)
		d := time.Since(start)
		if err != nil {
			return "", 0, 0, fmt.Errorf("search_references %s: %w", sel, err)
		}
		if best == 0 || d < best {
			best, count = d, len(locs)
		}
	}
	return sel, best, count, nil
}

// mostSent finds the keyword selector sent by the most methods, by a plain
// text count of the tree (good enough to pick the heavy case).
func mostSent(tree *tonel.Tree) string {
	counts := map[string]int{}
	for _, f := range tree.Files() {
		for _, m := range f.Methods {
			seen := map[string]bool{}
			for _, w := range keywordsIn(m.Source) {
				if !seen[w] {
					seen[w] = true
					counts[w]++
				}
			}
		}
	}
	best, n := "do:", 0
	for w, c := range counts {
		if c > n || (c == n && w < best) {
			best, n = w, c
		}
	}
	return best
}

// keywordsIn lists the one-part keywords (`do:`) written in a source.
func keywordsIn(src string) []string {
	var out []string
	start := -1
	for i := 0; i < len(src); i++ {
		c := src[i]
		isLetter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		switch {
		case isLetter && start < 0:
			start = i
		case c == ':' && start >= 0 && (i+1 >= len(src) || src[i+1] != '='):
			out = append(out, src[start:i+1])
			start = -1
		case !isLetter && !(c >= '0' && c <= '9'):
			start = -1
		}
	}
	return out
}

// measurePipelines times full runs on the sample image and on the
// generated one, back to back with the same scripted model.
func measurePipelines(e env, bigImage string) ([]figure, error) {
	vars, err := benchScript().Env(e.tmp, true)
	if err != nil {
		return nil, err
	}
	small, err := startService(e, "image-sample", vars)
	if err != nil {
		return nil, err
	}
	sampleLat, gate, err := timePipeline(e, small)
	small.stop()
	if err != nil {
		return nil, err
	}
	big, err := startServiceOn(e, "image-100k-service", bigImage, vars)
	if err != nil {
		return nil, err
	}
	bigLat, _, err := timePipeline(e, big)
	simRSS, rssErr := measure.RSSMB(big.simPID)
	big.stop()
	if err != nil {
		return nil, err
	}
	s, _ := measure.Summarize(sampleLat)
	b, _ := measure.Summarize(bigLat)
	rssNote := ""
	if rssErr == nil {
		rssNote = fmt.Sprintf("; pharo-sim %.1f MiB after them", simRSS)
	}
	runs := fmt.Sprintf("%d full runs over HTTP after 5 warm-up, every one 200 released%s", b.N, gate)
	return []figure{
		{"image_pipeline_overhead_p50_ms", measure.Millis(b.P50), "ms", runs + " on the generated image" + rssNote},
		{"image_pipeline_overhead_p99_ms", measure.Millis(b.P99), "ms", fmt.Sprintf("max %.2f ms", measure.Millis(b.Max))},
		{"sample_pipeline_overhead_p50_ms", measure.Millis(s.P50), "ms", "the same runs on the sample image, just before; p99 " + fmt.Sprintf("%.2f ms", measure.Millis(s.P99))},
		{"image_vs_sample_pipeline", measure.Round(float64(b.P50)/float64(s.P50), 2), "ratio", "p50 on the generated image / p50 on the sample image; goal ≤ 2"},
	}, nil
}

// timePipeline runs the pipeline imagePipelineRuns times after a warm-up.
func timePipeline(e env, svc *service) (measure.Samples, string, error) {
	client := &http.Client{Timeout: 5 * time.Minute}
	gate := ""
	lat := make(measure.Samples, 0, imagePipelineRuns)
	for i := range 5 + imagePipelineRuns {
		got, err := releaseRun(e.ctx, client, svc, i)
		if err != nil {
			return nil, "", fmt.Errorf("%w\n%s", err, svc.logTail())
		}
		if got.gate != "" {
			gate = "; " + got.gate
		}
		if i >= 5 {
			lat = append(lat, got.took)
		}
	}
	if len(lat) == 0 {
		return nil, "", errors.New("no run measured")
	}
	return lat, gate, nil
}
