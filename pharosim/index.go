package pharosim

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// index holds what the searches ask for, maintained on every change: a
// search costs what it finds, never a pass over the image. Each posting
// list holds method ids, each at most once.
type index struct {
	implementors postings // selector → the methods with it
	references   postings // selector sent or symbol used → the methods
	classRefs    postings // capitalised name used and not declared → the methods
}

func newIndex() index {
	return index{implementors: postings{}, references: postings{}, classRefs: postings{}}
}

// postings maps a term to its list.
type postings map[string]*plist

// plist is the methods filed under one term, and the term itself.
type plist struct {
	term string
	ids  []int32
}

// add files id under term and answers its list, whose term is the one
// string equal selectors share. A new term is copied: the map must not keep
// a whole file's text alive through a selector cut out of it.
func (p postings) add(term string, id int32) *plist {
	l, ok := p[term]
	if !ok {
		l = &plist{term: strings.Clone(term)}
		p[l.term] = l
	}
	l.ids = append(l.ids, id)
	return l
}

// remove takes id from term's list; the order of a list does not matter.
func (p postings) remove(term string, id int32) {
	l := p[term]
	if l == nil {
		return
	}
	for i, x := range l.ids {
		if x == id {
			l.ids[i] = l.ids[len(l.ids)-1]
			l.ids = l.ids[:len(l.ids)-1]
			break
		}
	}
	if len(l.ids) == 0 {
		delete(p, term)
	}
}

// ids answers the methods filed under term.
func (p postings) ids(term string) []int32 {
	if l := p[term]; l != nil {
		return l.ids
	}
	return nil
}

// methodTerms are what a method contributes to the reference indexes.
type methodTerms struct {
	refs    []string // selectors it sends and symbols it uses
	classes []string // capitalised names it uses without declaring them
}

// termsOf parses a method source for the reference indexes, as
// `SystemNavigation>>allReferencesTo:` and `allReferencesToClass:` find
// them. A method that does not parse references nothing a search can see.
func termsOf(source string) methodTerms {
	m, err := smalltalk.ParseMethod(source)
	if err != nil {
		return methodTerms{}
	}
	info := m.Info()
	t := methodTerms{refs: make([]string, 0, len(info.Sends)+len(info.Symbols))}
	t.refs = append(t.refs, info.Sends...)
	for _, s := range info.Symbols {
		if !contains(info.Sends, s) {
			t.refs = append(t.refs, s)
		}
	}
	for _, name := range info.Referenced {
		if isCapitalised(name) && !contains(info.Args, name) && !contains(info.Temps, name) {
			t.classes = append(t.classes, name)
		}
	}
	return t
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isCapitalised(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// add indexes a new method and answers the list of its selector's
// implementors.
func (x *index) add(id int32, selector string, t methodTerms) *plist {
	impl := x.implementors.add(selector, id)
	for _, r := range t.refs {
		x.references.add(r, id)
	}
	for _, c := range t.classes {
		x.classRefs.add(c, id)
	}
	return impl
}

// remove takes a method out of the index; t must be the terms it was added
// with.
func (x *index) remove(id int32, selector string, t methodTerms) {
	x.implementors.remove(selector, id)
	for _, r := range t.refs {
		x.references.remove(r, id)
	}
	for _, c := range t.classes {
		x.classRefs.remove(c, id)
	}
}

// update re-indexes a method whose source changed but not its selector.
func (x *index) update(id int32, before, after methodTerms) {
	for _, r := range before.refs {
		if !contains(after.refs, r) {
			x.references.remove(r, id)
		}
	}
	for _, r := range after.refs {
		if !contains(before.refs, r) {
			x.references.add(r, id)
		}
	}
	for _, c := range before.classes {
		if !contains(after.classes, c) {
			x.classRefs.remove(c, id)
		}
	}
	for _, c := range after.classes {
		if !contains(before.classes, c) {
			x.classRefs.add(c, id)
		}
	}
}

// Reference is one method found by a search: {class, method, package}.
// Class is `Foo class` for a class-side method, as `methodClass name` prints.
type Reference struct {
	Class   string `json:"class"`
	Method  string `json:"method"`
	Package string `json:"package"`
}

// references lists the methods of a posting list, sorted by class then
// selector.
func (img *Image) references(ids []int32) []Reference {
	out := make([]Reference, len(ids))
	for i, id := range ids {
		out[i] = img.methods.rec(id).reference()
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Class != out[j].Class {
			return out[i].Class < out[j].Class
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// Implementors lists the methods with that selector.
func (img *Image) Implementors(selector string) []Reference {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return img.references(img.idx.implementors.ids(selector))
}

// References lists the methods that send the selector or use it as a
// literal symbol, as `SystemNavigation>>allReferencesTo:` does.
func (img *Image) References(selectorOrSymbol string) []Reference {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return img.references(img.idx.references.ids(selectorOrSymbol))
}

// ReferencesToClass lists the methods that name the class as a variable
// (not shadowed by an argument or temporary of the same name).
func (img *Image) ReferencesToClass(name string) ([]Reference, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	if _, ierr := img.lookupClass(name); ierr != nil && !img.isGlobal(name) {
		return nil, ierr
	}
	return img.references(img.idx.classRefs.ids(name)), nil
}

// compact rebuilds the posting lists once the image is loaded: every list
// in one backing array with its exact length, the list headers in one
// block and the terms in one string, so that the index takes what it holds
// rather than what growing it left behind. The method records' selectors
// are pointed at the new lists.
func (x *index) compact(methods *methodTable) {
	x.implementors = x.implementors.compacted()
	x.references = x.references.compacted()
	x.classRefs = x.classRefs.compacted()
	for _, l := range x.implementors {
		for _, id := range l.ids {
			methods.rec(id).impl = l
		}
	}
}

func (p postings) compacted() postings {
	old := make([]*plist, 0, len(p))
	count, size := 0, 0
	for _, l := range p {
		old = append(old, l)
		count += len(l.ids)
		size += len(l.term)
	}
	var terms strings.Builder
	terms.Grow(size)
	for _, l := range old {
		terms.WriteString(l.term)
	}
	all := terms.String()
	ids := make([]int32, count)
	lists := make([]plist, len(old))
	out := make(postings, len(old))
	at, termAt := 0, 0
	for i, l := range old {
		n := len(l.ids)
		copy(ids[at:], l.ids)
		lists[i] = plist{term: all[termAt : termAt+len(l.term)], ids: ids[at : at+n : at+n]}
		out[lists[i].term] = &lists[i]
		at, termAt = at+n, termAt+len(l.term)
	}
	return out
}
