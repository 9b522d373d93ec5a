package interp

import (
	"unicode"
	"unicode/utf8"
)

// stringPrimitives are the Go primitives of the kernel's strings, symbols and characters.
var stringPrimitives = func() map[string]primitive {
	prims := map[string]primitive{
		"strCollate":        primStrCollate,
		"strCollationOrder": primStrCollationOrder,
		"selectorArity":     primSelectorArity,
		"strUtf8Encode":     primStrUtf8Encode,
		"bytesUtf8Decode":   primBytesUtf8Decode,
	}
	for name, category := range unicodeCategories {
		prims["char.category."+name] = func(in *Interp, r Object, a []Object) (Object, bool) {
			c, ok := r.(Char)
			return ok && unicode.Is(category, rune(c)), ok
		}
	}
	return prims
}()

// unicodeCategories are the general categories Character's tests name
// (isMathSymbol is Sm…), each the primitive char.category.<test>.
var unicodeCategories = map[string]*unicode.RangeTable{
	"isConnectorPunctuation": unicode.Pc,
	"isControlOther":         unicode.Cc,
	"isCurrencySymbol":       unicode.Sc,
	"isDashPunctuation":      unicode.Pd,
	"isDecimalDigit":         unicode.Nd,
	"isEnclosingMark":        unicode.Me,
	"isFinalQuote":           unicode.Pf,
	"isFormatOther":          unicode.Cf,
	"isInitialQuote":         unicode.Pi,
	"isLetterModifier":       unicode.Lm,
	"isLetterNumber":         unicode.Nl,
	"isLineSeparator":        unicode.Zl,
	"isMathSymbol":           unicode.Sm,
	"isModifierSymbol":       unicode.Sk,
	"isNonspacingMark":       unicode.Mn,
	"isOtherLetter":          unicode.Lo,
	"isOtherNumber":          unicode.No,
	"isOtherPunctuation":     unicode.Po,
	"isOtherSymbol":          unicode.So,
	"isParagraphSeparator":   unicode.Zp,
	"isPrivateOther":         unicode.Co,
	"isSpaceSeparator":       unicode.Zs,
	"isSpacingCombiningMark": unicode.Mc,
	"isSurrogateOther":       unicode.Cs,
	"isTitlecaseLetter":      unicode.Lt,
}

// A collation order gives each character below 256 its rank when strings
// are compared; a character from 256 up ranks as its code point.
type collationOrder [256]int64

// collationOrders are Pharo's three: code points (#ascii); case ignored,
// each lowercase letter of Latin-1 ranking as its capital
// (#caseInsensitive); case kept, with space, the digits, then each capital
// just before its small letter, then the rest in code order
// (#caseSensitive).
var collationOrders = map[string]*collationOrder{
	"ascii":           asciiOrder(),
	"caseInsensitive": caseInsensitiveOrder(),
	"caseSensitive":   caseSensitiveOrder(),
}

func asciiOrder() *collationOrder {
	var o collationOrder
	for i := range o {
		o[i] = int64(i)
	}
	return &o
}

func caseInsensitiveOrder() *collationOrder {
	o := asciiOrder()
	for c := range o {
		if lower := unicode.ToLower(rune(c)); lower < 256 && lower != rune(c) {
			o[lower] = o[c]
		}
	}
	return o
}

func caseSensitiveOrder() *collationOrder {
	var o collationOrder
	placed := [256]bool{}
	next := int64(0)
	place := func(c rune) {
		o[c], placed[c] = next, true
		next++
	}
	for _, c := range " 0123456789" {
		place(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		place(unicode.ToUpper(c))
		place(c)
	}
	for c := range o {
		if !placed[c] {
			place(rune(c))
		}
	}
	return &o
}

func (o *collationOrder) rank(c rune) int64 {
	if c >= 0 && c < 256 {
		return o[c]
	}
	return int64(c)
}

// primStrCollate answers -1, 0 or 1 as the receiver sorts before, with or
// after the argument string in the named collation order; a shorter
// string sorts before a longer one it begins.
func primStrCollate(in *Interp, r Object, a []Object) (Object, bool) {
	order, ok := collationOrders[symOf(a[1])]
	if !ok || !isStringy(a[0]) {
		return nil, false
	}
	x, y := runesOf(r), runesOf(a[0])
	for i := 0; i < len(x) && i < len(y); i++ {
		if rx, ry := order.rank(x[i]), order.rank(y[i]); rx != ry {
			if rx < ry {
				return int64(-1), true
			}
			return int64(1), true
		}
	}
	switch {
	case len(x) < len(y):
		return int64(-1), true
	case len(x) > len(y):
		return int64(1), true
	}
	return int64(0), true
}

// primStrCollationOrder answers the ranks of a collation order as an Array
// of 256 integers.
func primStrCollationOrder(in *Interp, r Object, a []Object) (Object, bool) {
	order, ok := collationOrders[symOf(a[0])]
	if !ok {
		return nil, false
	}
	ranks := make([]Object, len(order))
	for i, rank := range order {
		ranks[i] = rank
	}
	return in.newArray(ranks), true
}

// primSelectorArity answers how many arguments a message of the
// receiver's characters takes: 0 for an identifier (unary), 1 for a run
// of binary characters, one per keyword for identifiers each followed by
// a colon; -1 when the characters make no selector.
func primSelectorArity(in *Interp, r Object, a []Object) (Object, bool) {
	return int64(selectorArity(runesOf(r))), true
}

const binarySelectorChars = "!%&*+,-/<=>?@\\|~"

func selectorArity(s []rune) int {
	if len(s) == 0 {
		return -1
	}
	if isBinarySelectorChar(s[0]) {
		for _, c := range s {
			if !isBinarySelectorChar(c) {
				return -1
			}
		}
		return 1
	}
	keywords, start := 0, true
	for i, c := range s {
		switch {
		case c == ':':
			if start {
				return -1
			}
			keywords++
			start = true
		case c == '_' || unicode.IsLetter(c) || (!start && unicode.IsDigit(c)):
			start = false
		default:
			return -1
		}
		if i == len(s)-1 && keywords > 0 && c != ':' {
			return -1
		}
	}
	return keywords
}

func isBinarySelectorChar(c rune) bool {
	for _, b := range binarySelectorChars {
		if c == b {
			return true
		}
	}
	return false
}

// upperCase is Character>>asUppercase: Unicode's simple mapping, and the
// capital sharp s for ß, as Pharo has it.
func upperCase(c rune) rune {
	if c == 'ß' {
		return 'ẞ'
	}
	return unicode.ToUpper(c)
}

// primStrUtf8Encode answers the UTF-8 bytes of the receiver as a ByteArray.
func primStrUtf8Encode(in *Interp, r Object, a []Object) (Object, bool) {
	encoded := []byte(string(runesOf(r)))
	bytes := in.newInstance(in.classes["ByteArray"])
	bytes.indexed = make([]Object, len(encoded))
	for i, b := range encoded {
		bytes.indexed[i] = int64(b)
	}
	return bytes, true
}

// primBytesUtf8Decode answers the String the receiver's UTF-8 bytes
// encode; it fails on bytes that are not UTF-8.
func primBytesUtf8Decode(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	if !ok || o.class.kind != "bytes" {
		return nil, false
	}
	raw := make([]byte, len(o.indexed))
	for i, v := range o.indexed {
		b, ok := v.(int64)
		if !ok || b < 0 || b > 255 {
			return nil, false
		}
		raw[i] = byte(b)
	}
	if !utf8.Valid(raw) {
		return nil, false
	}
	return in.newString(string(raw)), true
}
