package interp

import "unicode"

// characterPrimitives are the Go primitives of Character: its value, and
// its tests and case conversions (char.<selector>, char.category.<test>).
var characterPrimitives = func() map[string]primitive {
	prims := map[string]primitive{
		"charValue": onChar(func(in *Interp, c Char, a []Object) (Object, bool) { return int64(c), true }),
		"charFromValue": func(in *Interp, r Object, a []Object) (Object, bool) {
			v, ok := a[0].(int64)
			if !ok || v < 0 || v > maxCharacterValue {
				return nil, false
			}
			return Char(rune(v)), true
		},
	}
	for name, test := range characterTests {
		prims["char."+name] = onChar(func(in *Interp, c Char, a []Object) (Object, bool) { return test(rune(c)), true })
	}
	for name, category := range unicodeCategories {
		prims["char.category."+name] = onChar(func(in *Interp, c Char, a []Object) (Object, bool) {
			return unicode.Is(category, rune(c)), true
		})
	}
	return prims
}()

// maxCharacterValue is Character maxVal: Pharo's characters hold code
// points up to 2^30 - 1, past Unicode's last.
const maxCharacterValue = 1<<30 - 1

// characterTests are Character's tests and case conversions, each a
// primitive char.<selector>.
var characterTests = map[string]func(c rune) Object{
	"isLetter":    func(c rune) Object { return unicode.IsLetter(c) },
	"isDigit":     func(c rune) Object { return c >= '0' && c <= '9' },
	"isUppercase": func(c rune) Object { return unicode.IsUpper(c) },
	"isLowercase": func(c rune) Object { return unicode.IsLower(c) },
	"isSeparator": func(c rune) Object { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' },
	// Pharo's punctuation is Unicode's opening and closing kinds only:
	// brackets, not the period or the comma
	"isOpenPunctuation":  func(c rune) Object { return unicode.Is(unicode.Ps, c) },
	"isClosePunctuation": func(c rune) Object { return unicode.Is(unicode.Pe, c) },
	"isPunctuation":      func(c rune) Object { return unicode.In(c, unicode.Ps, unicode.Pe) },
	"asUppercase":        func(c rune) Object { return Char(upperCase(c)) },
	"asLowercase":        func(c rune) Object { return Char(unicode.ToLower(c)) },
}

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
