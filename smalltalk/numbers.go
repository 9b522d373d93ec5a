package smalltalk

// byteCap bounds intermediate values: anything above it is already no byte,
// and capping keeps huge literals from overflowing.
const byteCap = 1 << 20

// isByte reports whether a number literal the scanner accepted is an
// integer from 0 to 255, the only elements a #[ ] may hold. Integers may be
// written with a radix or a non-negative exponent (16rFF, 1e2, 2r1e4);
// fractions, floats and scaled decimals are not integers.
func isByte(text string) bool {
	i, neg := 0, false
	if text[0] == '-' {
		i, neg = 1, true
	}
	v, i := digitsValue(text, i, 10)
	base := 10
	if i < len(text) && text[i] == 'r' {
		base = v
		i++
		if i < len(text) && text[i] == '-' {
			neg = !neg
			i++
		}
		v, i = digitsValue(text, i, base)
	}
	if i < len(text) {
		exp, ok := exponent(text[i:])
		if !ok {
			return false
		}
		for ; exp > 0 && v > 0 && v <= 255; exp-- {
			v *= base
		}
	}
	return v <= 255 && (!neg || v == 0)
}

// digitsValue reads digits of base from text[i:], capping the value.
func digitsValue(text string, i, base int) (int, int) {
	v := 0
	for ; i < len(text) && digitValue(text[i]) < base; i++ {
		v = min(v*base+digitValue(text[i]), byteCap)
	}
	return v, i
}

// exponent reads the suffix of an integer literal: e, d or q and decimal
// digits. Anything else (a fraction, a negative exponent, a scale) makes
// the literal a non-integer.
func exponent(suffix string) (int, bool) {
	if suffix[0] != 'e' && suffix[0] != 'd' && suffix[0] != 'q' {
		return 0, false
	}
	exp, end := digitsValue(suffix, 1, 10)
	if end == 1 || end != len(suffix) {
		return 0, false
	}
	return exp, true
}
