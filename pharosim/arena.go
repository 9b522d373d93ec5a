package pharosim

import "github.com/pharo-refactor/refactord/smalltalk/tonel"

// loadArena hands out the image's long-lived small objects from a few large
// blocks while the tree loads. The load's parsing leaves much short-lived
// garbage; objects kept for good, allocated one by one among it, would pin
// half-empty pages of the heap long after the garbage is gone. Blocks keep
// them together, so the memory of a loaded image is close to what it holds.
type loadArena struct {
	files   []srcFile
	classes []class
	ids     []int32
	names   []string
}

// arenaChunk is how many ids or names a block holds.
const arenaChunk = 1 << 16

func newLoadArena(files int) *loadArena {
	return &loadArena{files: make([]srcFile, files), classes: make([]class, files)}
}

// file answers a zeroed srcFile.
func (a *loadArena) file() *srcFile {
	if a == nil || len(a.files) == 0 {
		return &srcFile{}
	}
	f := &a.files[0]
	a.files = a.files[1:]
	return f
}

// class answers a zeroed class.
func (a *loadArena) class() *class {
	if a == nil || len(a.classes) == 0 {
		return &class{}
	}
	c := &a.classes[0]
	a.classes = a.classes[1:]
	return c
}

// idList answers an empty list of capacity n (appending beyond it moves
// the list out of the block).
func (a *loadArena) idList(n int) []int32 {
	if a == nil || n > arenaChunk/4 {
		return make([]int32, 0, n)
	}
	if len(a.ids) < n {
		a.ids = make([]int32, arenaChunk)
	}
	s := a.ids[:0:n]
	a.ids = a.ids[n:]
	return s
}

// strs copies a list of strings into a block.
func (a *loadArena) strs(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	if a == nil || len(list) > arenaChunk/4 {
		return append([]string(nil), list...)
	}
	if len(a.names) < len(list) {
		a.names = make([]string, arenaChunk)
	}
	s := a.names[:len(list):len(list)]
	copy(s, list)
	a.names = a.names[len(list):]
	return s
}

// definition copies the lists of a definition into blocks.
func (a *loadArena) definition(d tonel.Definition) tonel.Definition {
	if a == nil {
		return d
	}
	d.InstVars, d.ClassVars = a.strs(d.InstVars), a.strs(d.ClassVars)
	d.Pools, d.ClassInstVars = a.strs(d.Pools), a.strs(d.ClassInstVars)
	if len(d.Extra) > 0 {
		d.Extra = append([]tonel.Field(nil), d.Extra...)
	}
	return d
}
