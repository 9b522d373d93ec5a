package main

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// The image-scale scenario runs on a generated Tonel tree the size of
// Pharo's own (about 93,000 methods in 29 MB): packages of a few dozen
// classes whose sizes follow the long tail of a real image (most classes
// hold a handful of methods, a few hold hundreds, one holds 3,000), with
// accessors, class-side constructors, extensions, traits, and method bodies
// that send selectors the image implements, name its classes and use
// symbols, so that searches find what they would in a real image. It is
// generated from a fixed seed: every run measures the same tree, and
// nothing large is committed.

// genConfig sizes a generated image.
type genConfig struct {
	methods int   // about this many methods
	seed    int64 // the same seed gives the same tree, byte for byte
}

// genStats describes a generated tree.
type genStats struct {
	Packages     int   `json:"packages"`
	Classes      int   `json:"classes"`
	Methods      int   `json:"methods"`
	Files        int   `json:"files"`
	Bytes        int64 `json:"bytes"`
	LargestClass int   `json:"largest_class_methods"`
}

var (
	genNouns = strings.Fields("account address amount anchor array asset attribute balance batch block border buffer cache " +
		"canvas cell channel chart child client color column command config connection context counter cursor " +
		"date delta device document edge element entity entry event field figure filter font format frame " +
		"graph group handler header image index item key label layout line link list locale margin matrix " +
		"member message method model node number offset order owner package page panel parent path pattern " +
		"point port position price printer query range reader record region report request resource result " +
		"row rule scale scope selection sender server session shape signal size slot source span state " +
		"stream string style symbol table target task text theme timer token tree type unit value version " +
		"view visitor widget window word writer zone")
	genVerbs = strings.Fields("accept add adjust apply attach build check clear close collect compare compute convert copy " +
		"create decode define delete detect draw encode ensure evaluate expand export fetch fill find flush " +
		"format handle hide import include initialize insert install layout load lookup mark merge move notify " +
		"open parse perform place print process read refresh register release remove render reset resolve " +
		"restore save scan select send serialize show sort split start stop store update validate visit write")
	genAdjectives = strings.Fields("active basic cached current default dirty empty enabled final first " +
		"hidden last local modified new open pending primary selected shared valid visible")
	genArgs = strings.Fields("anObject aString aNumber anInteger aBlock aCollection aStream aSymbol aPoint " +
		"aDictionary anArray aBoolean aClass aNode anEvent aContext")
	genGlobals = strings.Fields("OrderedCollection Dictionary Set Array String Symbol Character Error " +
		"WriteStream ReadStream Point Rectangle Color Date Time DateAndTime Transcript Smalltalk " +
		"Association Interval Bag ByteArray Float Fraction SortedCollection IdentityDictionary")
	genBinaries   = strings.Fields("= < > <= >= + - * / // \\\\ , -> ==> @ & |")
	genCategories = strings.Fields("accessing initialization testing printing converting comparing " +
		"enumerating private updating actions building queries adding removing")
)

// generator builds one image from a seed.
type generator struct {
	r         *rand.Rand
	selectors []string // the pool methods are named from and send, most used first
	selZipf   *rand.Zipf
	classes   []string // every class and trait name, in creation order
	traits    map[string]bool
	classZipf *rand.Zipf
}

func newGenerator(seed int64) *generator {
	g := &generator{r: rand.New(rand.NewSource(seed)), traits: map[string]bool{}}
	g.selectors = g.selectorPool(24000)
	g.selZipf = rand.NewZipf(g.r, 1.08, 8, uint64(len(g.selectors)-1))
	return g
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func (g *generator) pick(words []string) string { return words[g.r.Intn(len(words))] }

// selectorPool makes distinct selectors, the common ones of every image
// first so that the Zipf draw makes them the most implemented and sent.
func (g *generator) selectorPool(n int) []string {
	pool := strings.Fields("initialize printOn: = hash value name size isEmpty do: includes: " +
		"add: remove: at: at:put: new with: on: accept: visit: yourself copy postCopy asString " +
		"displayString key parent children ifEmpty: collect: select: detect:ifNone: inject:into:")
	pool = append(pool, genBinaries...)
	seen := map[string]bool{}
	for _, s := range pool {
		seen[s] = true
	}
	for len(pool) < n {
		var s string
		switch k := g.r.Intn(10); {
		case k < 4:
			s = g.pick(genVerbs) + capitalize(g.pick(genNouns))
		case k < 5:
			s = "is" + capitalize(g.pick(genAdjectives))
		case k < 8:
			s = g.pick(genVerbs) + capitalize(g.pick(genNouns)) + ":"
		case k < 9:
			s = g.pick(genVerbs) + ":" + g.pick(genNouns) + ":"
		default:
			s = g.pick(genNouns) + capitalize(g.pick(genNouns)) + ":with:"
		}
		if !seen[s] {
			seen[s] = true
			pool = append(pool, s)
		}
	}
	return pool
}

func (g *generator) selector() string { return g.selectors[g.selZipf.Uint64()] }

// className answers a class the generated code may name: one of the image
// (the most used first) or a global of every Pharo image.
func (g *generator) className() string {
	if g.classZipf == nil || g.r.Intn(4) == 0 {
		return g.pick(genGlobals)
	}
	return g.classes[g.classZipf.Uint64()]
}

// classSize draws a class's method count from a log-normal law (median
// about 6, long tail), as in a real image.
func (g *generator) classSize() int {
	n := int(math.Exp(math.Log(6) + 1.3*g.r.NormFloat64()))
	return min(max(n, 1), 600)
}

// message builds a send of sel to receiver with arguments drawn from args.
func (g *generator) message(receiver, sel string, args []string) string {
	arg := func() string {
		switch g.r.Intn(5) {
		case 0:
			return fmt.Sprint(g.r.Intn(100))
		case 1:
			return "'" + g.pick(genNouns) + "'"
		case 2:
			return "#" + g.pick(genNouns)
		}
		return g.pick(args)
	}
	switch n := strings.Count(sel, ":"); {
	case n == 0 && strings.ContainsAny(sel[:1], "=<>+-*/\\,@&|"):
		return receiver + " " + sel + " " + arg()
	case n == 0:
		return receiver + " " + sel
	default:
		parts := strings.SplitAfter(sel, ":")
		var b strings.Builder
		b.WriteString(receiver)
		for _, p := range parts[:n] {
			b.WriteString(" " + p + " " + arg())
		}
		return b.String()
	}
}

// statement builds one statement of a method body; vars are the names it
// may read, assignable those it may store into.
func (g *generator) statement(vars, assignable []string) string {
	v := g.pick(vars)
	k := g.r.Intn(9)
	if len(assignable) == 0 && (k == 0 || k == 5 || k == 7) {
		k = 1
	}
	a := ""
	if len(assignable) > 0 {
		a = g.pick(assignable)
	}
	switch k {
	case 0:
		return a + " := " + g.className() + " new"
	case 1:
		return g.message("self", g.selector(), vars)
	case 2:
		return v + " do: [ :each | " + g.message("each", g.selector(), append(vars, "each")) + " ]"
	case 3:
		return v + " isNil ifTrue: [ ^ " + g.message("self", g.selector(), vars) + " ]"
	case 4:
		return "aStream nextPutAll: '" + g.pick(genNouns) + "'; print: " + v + "; cr"
	case 5:
		return a + " := " + v + " collect: [ :x | x " + g.pick(genVerbs) + capitalize(g.pick(genNouns)) + " ]"
	case 6:
		return "^ " + g.message(v, g.selector(), vars)
	case 7:
		return a + " := #( #" + g.selector() + " " + fmt.Sprint(g.r.Intn(9)) + " $a '" + g.pick(genNouns) + "' )"
	default:
		return g.message(g.className(), g.selector(), vars)
	}
}

// methodSource builds a method with that selector.
func (g *generator) methodSource(sel string, instVars []string) string {
	var b strings.Builder
	args := []string{}
	switch n := strings.Count(sel, ":"); {
	case n == 0 && strings.ContainsAny(sel[:1], "=<>+-*/\\,@&|"):
		b.WriteString(sel + " anObject")
		args = append(args, "anObject")
	case n == 0:
		b.WriteString(sel)
	default:
		for i, p := range strings.SplitAfter(sel, ":")[:n] {
			a := g.pick(genArgs)
			if i > 0 {
				a += fmt.Sprint(i)
			}
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(p + " " + a)
			args = append(args, a)
		}
	}
	b.WriteString("\n")
	if g.r.Intn(3) > 0 {
		b.WriteString("\t\"" + capitalize(g.pick(genVerbs)) + " the " + g.pick(genNouns) + " of the receiver and answer it.")
		if g.r.Intn(2) == 0 {
			b.WriteString("\n\tThe " + g.pick(genNouns) + " is " + g.pick(genAdjectives) + " until the " + g.pick(genNouns) + " is " + g.pick(genVerbs) + "ed.")
		}
		b.WriteString("\"\n")
	}
	b.WriteString("\n")
	temps := []string{}
	if g.r.Intn(3) == 0 {
		temps = []string{"result", g.pick(genNouns)}
		if temps[1] == "result" || contains(instVars, temps[1]) || contains(args, temps[1]) {
			temps = temps[:1]
		}
		b.WriteString("\t| " + strings.Join(temps, " ") + " |\n")
	}
	vars := append(append(append([]string{"self"}, instVars...), args...), temps...)
	assignable := append(append([]string{}, instVars...), temps...)
	n := 2 + g.r.Intn(7)
	for i := range n {
		st := g.statement(vars, assignable)
		if i < n-1 {
			// Only the last statement returns: no unreachable code.
			b.WriteString("\t" + strings.TrimPrefix(st, "^ ") + ".\n")
			continue
		}
		b.WriteString("\t" + st)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// classMethods builds n methods for a class: accessors of its variables,
// a few class-side methods, the rest named from the pool.
func (g *generator) classMethods(n int, instVars []string, pkgName string, extension bool) []tonel.Method {
	used := map[string]bool{}
	var out []tonel.Method
	add := func(side tonel.Side, sel, src, category string) {
		key := side.String() + " " + sel
		if used[key] {
			return
		}
		used[key] = true
		out = append(out, tonel.Method{Side: side, Selector: sel, Source: src, Category: category})
	}
	for attempts := 0; len(out) < n && attempts < 20*n; attempts++ {
		category := g.pick(genCategories)
		if extension {
			category = "*" + pkgName
		}
		switch k := g.r.Intn(20); {
		case k < 3 && len(instVars) > 0 && !extension:
			v := g.pick(instVars)
			add(tonel.InstanceSide, v, v+"\n\n\t^ "+v, "accessing")
		case k < 5 && len(instVars) > 0 && !extension:
			v := g.pick(instVars)
			add(tonel.InstanceSide, v+":", v+": anObject\n\n\t"+v+" := anObject", "accessing")
		case k < 7:
			sel := g.selector()
			add(tonel.ClassSide, sel, g.methodSource(sel, nil), category)
		default:
			sel := g.selector()
			add(tonel.InstanceSide, sel, g.methodSource(sel, instVars), category)
		}
	}
	return out
}

// generateImage writes the tree under dir/src and answers what it holds.
func generateImage(dir string, cfg genConfig) (genStats, error) {
	g := newGenerator(cfg.seed)
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return genStats{}, err
	}
	if err := os.WriteFile(filepath.Join(src, ".properties"), []byte("{\n\t#format : #tonel\n}"), 0o644); err != nil {
		return genStats{}, err
	}
	// Sizes first (with the giants real images have), then names, so that
	// method bodies can name any class.
	sizes := []int{3000, 1400, 900}
	total := sizes[0] + sizes[1] + sizes[2]
	for total < cfg.methods {
		s := g.classSize()
		sizes = append(sizes, s)
		total += s
	}
	g.r.Shuffle(len(sizes), func(i, j int) { sizes[i], sizes[j] = sizes[j], sizes[i] })
	seen := map[string]bool{}
	for range sizes {
		for {
			name := "Gen" + capitalize(g.pick(genAdjectives)) + capitalize(g.pick(genNouns)) + capitalize(g.pick(genNouns))
			trait := g.r.Intn(30) == 0
			switch {
			case trait:
				name = "T" + name
			case g.r.Intn(8) == 0:
				name += "Test"
			}
			if !seen[name] {
				seen[name] = true
				g.classes = append(g.classes, name)
				g.traits[name] = trait
				break
			}
		}
	}
	g.classZipf = rand.NewZipf(g.r, 1.2, 4, uint64(len(g.classes)-1))

	var st genStats
	write := func(path string, data []byte) error {
		st.Files++
		st.Bytes += int64(len(data))
		return os.WriteFile(path, data, 0o644)
	}
	for i := 0; i < len(sizes); {
		pkgName := fmt.Sprintf("Gen-%s%03d", capitalize(g.pick(genNouns)), st.Packages)
		pkgDir := filepath.Join(src, pkgName)
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			return st, err
		}
		st.Packages++
		pkgText, _ := tonel.Render(tonel.Definition{Kind: tonel.KindPackage, Name: pkgName}, nil)
		if err := write(filepath.Join(pkgDir, "package.st"), pkgText); err != nil {
			return st, err
		}
		for n := 5 + g.r.Intn(40); n > 0 && i < len(sizes); n-- {
			if err := g.writeClass(pkgDir, pkgName, i, sizes[i], &st, write); err != nil {
				return st, err
			}
			i++
		}
		if g.r.Intn(3) == 0 { // an extension of a class of another package
			target := g.classes[g.r.Intn(len(g.classes))]
			methods := g.classMethods(1+g.r.Intn(8), nil, pkgName, true)
			text, err := tonel.Render(tonel.Definition{Kind: tonel.KindExtension, Name: target}, methods)
			if err != nil {
				return st, err
			}
			st.Methods += len(methods)
			if err := write(filepath.Join(pkgDir, target+".extension.st"), text); err != nil {
				return st, err
			}
		}
	}
	return st, nil
}

// writeClass writes class i of the image (a trait now and then).
func (g *generator) writeClass(pkgDir, pkgName string, i, size int, st *genStats, write func(string, []byte) error) error {
	name := g.classes[i]
	def := tonel.Definition{Kind: tonel.KindClass, Name: name, Superclass: "Object", Package: pkgName, Tag: "Core"}
	if super := g.classes[g.r.Intn(i+1)]; g.r.Intn(3) > 0 && super != name && !g.traits[super] {
		def.Superclass = super
	}
	if g.traits[name] {
		def = tonel.Definition{Kind: tonel.KindTrait, Name: name, Package: pkgName, Tag: "Core"}
	}
	for v := g.r.Intn(6); v > 0; v-- {
		if n := g.pick(genNouns); !contains(def.InstVars, n) {
			def.InstVars = append(def.InstVars, n)
		}
	}
	sort.Strings(def.InstVars)
	if g.r.Intn(4) == 0 {
		def.Comment = "I am " + name + ": I " + g.pick(genVerbs) + " " + g.pick(genNouns) + "s for my " + g.pick(genNouns) + "."
	}
	methods := g.classMethods(size, def.InstVars, pkgName, false)
	text, err := tonel.Render(def, methods)
	if err != nil {
		return fmt.Errorf("generating %s: %w", def.Name, err)
	}
	st.Classes++
	st.Methods += len(methods)
	st.LargestClass = max(st.LargestClass, len(methods))
	suffix := ".class.st"
	if def.Kind == tonel.KindTrait {
		suffix = ".trait.st"
	}
	return write(filepath.Join(pkgDir, def.Name+suffix), text)
}
