package pharosim

import (
	"slices"
	"sync"

	"pharo-refactor/smalltalk"
	"pharo-refactor/smalltalk/tonel"
)

// refCache keeps the parser's summary of each method source, so that a
// search does not parse the whole image again. Readers share the image lock,
// so the cache has its own.
type refCache struct {
	mu    sync.Mutex
	infos map[string]*smalltalk.Info // by source; nil when it does not parse
}

func newRefCache() *refCache { return &refCache{infos: map[string]*smalltalk.Info{}} }

// maxCachedInfos bounds the cache: sources replaced by compiles stay in it
// until it is cleared.
const maxCachedInfos = 50000

// info returns the summary of a method source, or nil when it does not parse
// (such a method references nothing, as far as a search can tell).
func (c *refCache) info(source string) *smalltalk.Info {
	c.mu.Lock()
	defer c.mu.Unlock()
	if info, ok := c.infos[source]; ok {
		return info
	}
	if len(c.infos) >= maxCachedInfos {
		clear(c.infos)
	}
	var info *smalltalk.Info
	if m, err := smalltalk.ParseMethod(source); err == nil {
		info = m.Info()
	}
	c.infos[source] = info
	return info
}

// References lists the methods that send the selector or use it as a
// literal symbol, as `SystemNavigation>>allReferencesTo:` does.
func (img *Image) References(selectorOrSymbol string) []Reference {
	img.mu.RLock()
	defer img.mu.RUnlock()
	return img.collect(func(_ *tonel.File, m *tonel.Method) bool {
		info := img.refs.info(m.Source)
		return info != nil && (slices.Contains(info.Sends, selectorOrSymbol) || slices.Contains(info.Symbols, selectorOrSymbol))
	})
}

// ReferencesToClass lists the methods that name the class as a variable
// (not shadowed by an argument or temporary of the same name).
func (img *Image) ReferencesToClass(name string) ([]Reference, error) {
	img.mu.RLock()
	defer img.mu.RUnlock()
	if _, ierr := img.lookupClass(name); ierr != nil && !wellKnownGlobals[name] {
		return nil, ierr
	}
	return img.collect(func(_ *tonel.File, m *tonel.Method) bool {
		info := img.refs.info(m.Source)
		return info != nil && slices.Contains(info.Referenced, name) &&
			!slices.Contains(info.Args, name) && !slices.Contains(info.Temps, name)
	}), nil
}
