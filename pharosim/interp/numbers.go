package interp

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

func toBig(o Object) (*big.Int, bool) {
	switch v := o.(type) {
	case int64:
		return big.NewInt(v), true
	case *big.Int:
		return v, true
	}
	return nil, false
}

func toRat(o Object) (*big.Rat, bool) {
	switch v := o.(type) {
	case int64:
		return new(big.Rat).SetInt64(v), true
	case *big.Int:
		return new(big.Rat).SetInt(v), true
	case *big.Rat:
		return v, true
	}
	return nil, false
}

func toFloat(o Object) (float64, bool) {
	switch v := o.(type) {
	case int64:
		return float64(v), true
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		return f, true
	case *big.Rat:
		f, _ := v.Float64()
		return f, true
	case float64:
		return v, true
	}
	return 0, false
}

// arith makes a primitive of an operation: in integers when both are,
// in fractions when both are exact, else in floats. charge counts an
// integer result from its operands' sizes before the operation runs
// (squaring a large integer over and over is the quickest way to ask Go
// for gigabytes).
func arith(charge func(in *Interp, x, y int), small func(x, y int64) (int64, bool), ints func(x, y *big.Int) *big.Int, rats func(x, y *big.Rat) *big.Rat, floats func(x, y float64) float64) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		if x, ok := r.(int64); ok {
			if y, ok := a[0].(int64); ok {
				// SmallIntegers are below 2^60: a sum or difference
				// cannot overflow int64; a product is checked.
				if v, ok := small(x, y); ok && v >= -(1<<60) && v < 1<<60 {
					return v, true
				}
				in.chargeBits(128)
				return normInt(ints(big.NewInt(x), big.NewInt(y))), true
			}
		}
		if x, ok := toBig(r); ok {
			if y, ok := toBig(a[0]); ok {
				charge(in, x.BitLen(), y.BitLen())
				return normInt(ints(x, y)), true
			}
		}
		if x, ok := toRat(r); ok {
			if y, ok := toRat(a[0]); ok {
				in.chargeRats(x, y)
				return normRat(rats(x, y)), true
			}
		}
		x, ok1 := toFloat(r)
		y, ok2 := toFloat(a[0])
		if !ok1 || !ok2 {
			return nil, false
		}
		return floats(x, y), true
	}
}

func isZero(o Object) bool {
	switch v := o.(type) {
	case int64:
		return v == 0
	case *big.Int:
		return v.Sign() == 0
	case *big.Rat:
		return v.Sign() == 0
	case float64:
		return v == 0
	}
	return false
}

func primDivide(in *Interp, r Object, a []Object) (Object, bool) {
	if _, ok := toFloat(a[0]); !ok {
		return nil, false
	}
	if isZero(a[0]) {
		return in.zeroDivide(r), true
	}
	if x, ok := toRat(r); ok {
		if y, ok := toRat(a[0]); ok {
			in.chargeRats(x, y)
			return normRat(new(big.Rat).Quo(x, y)), true
		}
	}
	x, ok1 := toFloat(r)
	y, _ := toFloat(a[0])
	return x / y, ok1
}

// primIntDiv is // (floored) or quo: (truncated).
func primIntDiv(floored bool) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		if _, ok := toFloat(a[0]); !ok {
			return nil, false
		}
		if isZero(a[0]) {
			return in.zeroDivide(r), true
		}
		x, ok1 := toBig(r)
		y, ok2 := toBig(a[0])
		if ok1 && ok2 {
			in.chargeBig(x.BitLen(), divisionScratch, x.BitLen())
			q, m := new(big.Int).QuoRem(x, y, new(big.Int))
			if floored && m.Sign() != 0 && (m.Sign() < 0) != (y.Sign() < 0) {
				q.Sub(q, big.NewInt(1))
			}
			return normInt(q), true
		}
		xf, ok1 := toFloat(r)
		yf, _ := toFloat(a[0])
		if !ok1 {
			return nil, false
		}
		q := xf / yf
		if floored {
			q = math.Floor(q)
		} else {
			q = math.Trunc(q)
		}
		return normInt(bigFromFloat(q)), true
	}
}

func primIntMod(in *Interp, r Object, a []Object) (Object, bool) {
	if _, ok := toFloat(a[0]); !ok {
		return nil, false
	}
	if isZero(a[0]) {
		return in.zeroDivide(r), true
	}
	x, ok1 := toBig(r)
	y, ok2 := toBig(a[0])
	if ok1 && ok2 {
		in.chargeBig(y.BitLen(), divisionScratch, x.BitLen())
		m := new(big.Int).Rem(x, y)
		if m.Sign() != 0 && (m.Sign() < 0) != (y.Sign() < 0) {
			m.Add(m, y)
		}
		return normInt(m), true
	}
	xf, ok1 := toFloat(r)
	yf, _ := toFloat(a[0])
	if !ok1 {
		return nil, false
	}
	return xf - math.Floor(xf/yf)*yf, true
}

func primRem(in *Interp, r Object, a []Object) (Object, bool) {
	if isZero(a[0]) {
		return in.zeroDivide(r), true
	}
	x, ok1 := toBig(r)
	y, ok2 := toBig(a[0])
	if !ok1 || !ok2 {
		return nil, false
	}
	in.chargeBig(y.BitLen(), divisionScratch, x.BitLen())
	return normInt(new(big.Int).Rem(x, y)), true
}

func cmpNum(x, y Object) (int, bool) {
	if a, ok := x.(int64); ok {
		if b, ok := y.(int64); ok {
			switch {
			case a < b:
				return -1, true
			case a > b:
				return 1, true
			}
			return 0, true
		}
	}
	if a, ok := toRat(x); ok {
		if b, ok := toRat(y); ok {
			return a.Cmp(b), true
		}
	}
	if c, ok := cmpExactWithFloat(x, y); ok {
		return c, true
	}
	a, ok1 := toFloat(x)
	b, ok2 := toFloat(y)
	if !ok1 || !ok2 || math.IsNaN(a) || math.IsNaN(b) {
		return 2, ok1 && ok2
	}
	switch {
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	}
	return 0, true
}

// cmpExactWithFloat compares an Integer or a Fraction with a Float by
// their exact values, as Pharo does: (1/3) is not (1/3) asFloat, 2^54+1
// is above 2^54 asFloat, and a huge integer below Float infinity. Not ok
// for other operands, or a NaN.
func cmpExactWithFloat(x, y Object) (int, bool) {
	f, isFloat := y.(float64)
	other, sign := x, 1
	if !isFloat {
		if f, isFloat = x.(float64); !isFloat {
			return 0, false
		}
		other, sign = y, -1
	}
	if _, bothFloats := other.(float64); bothFloats || math.IsNaN(f) {
		return 0, false
	}
	if math.IsInf(f, 0) {
		// every exact number lies between the infinities
		if _, exact := toRat(other); exact {
			if f > 0 {
				return -sign, true
			}
			return sign, true
		}
		return 0, false
	}
	if n, ok := other.(int64); ok && n > -(1<<53) && n < 1<<53 {
		return 0, false // exact as a Float
	}
	r, ok := toRat(other)
	if !ok {
		return 0, false
	}
	return sign * r.Cmp(new(big.Rat).SetFloat64(f)), true
}

func compare(test func(int) bool) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := cmpNum(r, a[0])
		if !ok {
			return nil, false
		}
		if c == 2 {
			return false, true
		}
		return test(c), true
	}
}

func primNumEq(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := cmpNum(r, a[0])
	if _, other := a[0].(*Instance); !ok && other {
		// a number of the kernel's Smalltalk (a ScaledDecimal), or no number
		return nil, false
	}
	return ok && c == 0, true
}

func bitop(op func(x, y *big.Int) *big.Int) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok1 := toBig(r)
		y, ok2 := toBig(a[0])
		if !ok1 || !ok2 {
			return nil, false
		}
		in.chargeBits(max(x.BitLen(), y.BitLen()))
		return normInt(op(x, y)), true
	}
}

func primBitShift(in *Interp, r Object, a []Object) (Object, bool) {
	x, ok1 := toBig(r)
	n, ok2 := a[0].(int64)
	if !ok1 || !ok2 || n > 1<<20 {
		return nil, false
	}
	if n >= 0 {
		in.chargeBits(x.BitLen() + int(n))
		return normInt(new(big.Int).Lsh(x, uint(n))), true
	}
	return normInt(new(big.Int).Rsh(x, uint(-n))), true
}

func bigFromFloat(f float64) *big.Int {
	b, _ := new(big.Float).SetFloat64(f).Int(nil)
	return b
}

func primTruncated(in *Interp, r Object, a []Object) (Object, bool) {
	switch v := r.(type) {
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		return normInt(bigFromFloat(math.Trunc(v))), true
	case *big.Rat:
		in.chargeBig(v.Num().BitLen(), divisionScratch, v.Num().BitLen())
		return normInt(new(big.Int).Quo(v.Num(), v.Denom())), true
	case int64, *big.Int:
		return r, true
	}
	return nil, false
}

// lnOf is the natural logarithm of a number, of large integers and
// fractions too, whose Float would overflow or underflow.
func lnOf(o Object) (Object, bool) {
	switch v := o.(type) {
	case *big.Int:
		if v.Sign() > 0 {
			return lnBig(v), true
		}
	case *big.Rat:
		if v.Sign() > 0 {
			return lnBig(v.Num()) - lnBig(v.Denom()), true
		}
	}
	f, ok := toFloat(o)
	return math.Log(f), ok
}

// lnBig is ln x for a positive integer x: its top 62 bits as a Float, and
// the bits below them as a power of two.
func lnBig(x *big.Int) float64 {
	shift := max(x.BitLen()-62, 0)
	top, _ := new(big.Float).SetInt(new(big.Int).Rsh(x, uint(shift))).Float64()
	return math.Log(top) + float64(shift)*math.Ln2
}

func primFloatFn(fn func(float64) float64) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		switch v := r.(type) {
		case int64, *big.Int:
			return r, true
		case *big.Rat:
			in.chargeBig(v.Num().BitLen(), divisionScratch, v.Num().BitLen())
			f := new(big.Int).Div(v.Num(), v.Denom()) // Euclidean: floor for a positive denominator
			if fn(0.5) == 1 && !v.IsInt() {
				f.Add(f, big.NewInt(1))
			}
			return normInt(f), true
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, false
			}
			return normInt(bigFromFloat(fn(v))), true
		}
		return nil, false
	}
}

func primPrintBase(in *Interp, r Object, a []Object) (Object, bool) {
	x, ok := toBig(r)
	b, ok2 := a[0].(int64)
	if !ok || !ok2 || b < 2 || b > 36 {
		return nil, false
	}
	// the digits as Go text, then in capitals (a large integer in base 2
	// has a character a bit), and the scratch of making them, before
	// newString counts their characters
	in.chargeBig(0, printScratch, x.BitLen())
	in.charge(2 * int64(float64(x.BitLen())/math.Log2(float64(b))+2))
	return in.newString(strings.ToUpper(x.Text(int(b)))), true
}

func hashNumber(o Object) Object {
	switch v := o.(type) {
	case int64:
		return v
	case *big.Int:
		return hashBig(v)
	case *big.Rat:
		f, _ := v.Float64()
		return hashNumber(f)
	case float64:
		if v == math.Trunc(v) && v >= -(1<<60) && v < 1<<60 {
			return int64(v)
		}
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			// equal to a large integer, so hashed as it is
			return hashNumber(bigFromFloat(v))
		}
		return int64(math.Float64bits(v) >> 4)
	}
	return int64(0)
}

// hashBig hashes a large integer's words: printing it in decimal to hash
// that took 33 times its size and time growing faster than its size.
func hashBig(v *big.Int) int64 {
	var h uint64 = 1469598103934665603
	for _, w := range v.Bits() {
		for i := 0; i < 64; i += 8 {
			h ^= uint64(w>>i) & 0xff
			h *= 1099511628211
		}
	}
	if v.Sign() < 0 {
		h = ^h
	}
	return int64(h >> 4)
}

// formatFloat prints a Float as Pharo does: the shortest digits that read
// back the same, a decimal point always, an exponent from 1e16 up and
// below 1e-4 (`1.0e16`, `1.0e-5`), `Float nan`, `Float infinity`.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "Float nan"
	case math.IsInf(f, 1):
		return "Float infinity"
	case math.IsInf(f, -1):
		return "Float negativeInfinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e16 || abs < 1e-4 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		exp = strings.TrimPrefix(exp, "+")
		neg := strings.HasPrefix(exp, "-")
		exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
		if neg {
			exp = "-" + exp
		}
		return mant + "e" + exp
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// parseNumberLenient reads the number at the start of a string as
// String>>asNumber does; nil when there is none.
func (in *Interp) parseNumberLenient(s string) Object {
	v, n, scale := readNumberPrefix([]rune(s), 10, readNumber)
	if n == 0 {
		return nil
	}
	return in.scaled(v, scale)
}

// scaled makes v a ScaledDecimal of scale digits, when scale is one (not
// negative).
func (in *Interp) scaled(v Object, scale int) Object {
	c := in.classes["ScaledDecimal"]
	if scale < 0 || c == nil {
		return v
	}
	sd := in.newInstance(c)
	sd.vars[in.known.slots.scaledFraction], sd.vars[in.known.slots.scaledScale] = v, int64(scale)
	return sd
}

// digitIn answers the value of a digit in a base (letters of either case
// above 9), or -1 when c is no digit of that base.
func digitIn(c rune, base int) int {
	d := -1
	switch {
	case c >= '0' && c <= '9':
		d = int(c - '0')
	case c >= 'A' && c <= 'Z':
		d = int(c-'A') + 10
	case c >= 'a' && c <= 'z':
		d = int(c-'a') + 10
	}
	if d >= base {
		return -1
	}
	return d
}

// digitsAt reads the digits of a base from position i: their value, how
// many there are.
func digitsAt(s []rune, i, base int) (*big.Int, int) {
	v, b, n := new(big.Int), big.NewInt(int64(base)), 0
	for i+n < len(s) {
		d := digitIn(s[i+n], base)
		if d < 0 {
			break
		}
		v.Mul(v, b).Add(v, big.NewInt(int64(d)))
		n++
	}
	return v, n
}

// readMode is what readNumberPrefix reads.
type readMode int

const (
	readNumber  readMode = iota // any number literal
	readDigits                  // an optional minus and the digits of the base
	readInteger                 // an integer literal: radix and exponent, no fraction or scale
	readDecimal                 // a number literal, a scaled decimal when it has no exponent
)

// maxExponent bounds the exponents read, beyond which every Float is
// infinite or zero, so that a long exponent costs no big power.
const maxExponent = 2000

// readNumberPrefix reads the longest number at the start of s in
// Smalltalk's literal syntax — an optional minus, digits, a radix
// (16r1F, 10r-12.3), a fraction (1.5), an exponent of e, d or q (in the
// radix: 2r1e4 is 16), a scale (1.25s2) — as Number class>>readFrom:
// does: a dot, an exponent letter or a scale not followed by what makes
// them part of the number are left unread. It answers the number and
// how many characters it took, none when s starts with no number, and
// the scale of a scaled decimal (-1 for any other number). What it reads
// is narrowed by mode.
func readNumberPrefix(s []rune, base int, mode readMode) (Object, int, int) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg, i = true, 1
	}
	mant, n := digitsAt(s, i, base)
	if n == 0 {
		return nil, 0, -1
	}
	i += n
	if mode == readDigits {
		if neg {
			mant.Neg(mant)
		}
		return normInt(mant), i, -1
	}
	if i < len(s) && s[i] == 'r' && mant.IsInt64() && mant.Int64() >= 2 && mant.Int64() <= 36 {
		radix, j := int(mant.Int64()), i+1
		if !neg && j < len(s) && s[j] == '-' {
			neg, j = true, j+1
		}
		if m, k := digitsAt(s, j, radix); k > 0 {
			base, mant, i = radix, m, j+k
		}
	}
	fracDigits := 0
	if (mode == readNumber || mode == readDecimal) && i+1 < len(s) && s[i] == '.' && digitIn(s[i+1], base) >= 0 {
		f, k := digitsAt(s, i+1, base)
		scale := new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(k)), nil)
		mant.Mul(mant, scale).Add(mant, f)
		fracDigits, i = k, i+1+k
	}
	exp, hasExp := 0, false
	if i+1 < len(s) && strings.ContainsRune("edq", s[i]) {
		j, eneg := i+1, false
		if s[j] == '-' {
			eneg, j = true, j+1
		}
		if e, k := digitsAt(s, j, 10); k > 0 {
			if !e.IsInt64() || e.Int64() > maxExponent {
				e.SetInt64(maxExponent)
			}
			exp, hasExp, i = int(e.Int64()), true, j+k
			if eneg {
				exp = -exp
			}
		}
	}
	value := new(big.Rat).SetInt(mant)
	if neg {
		value.Neg(value)
	}
	if fracDigits > 0 {
		value.Quo(value, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(fracDigits)), nil)))
	}
	if (mode == readNumber || mode == readDecimal) && !hasExp && i < len(s) && s[i] == 's' {
		// a scale, unless the s begins a word (123sA reads 123)
		if i+1 >= len(s) || !isLetter(s[i+1]) {
			scale, k := digitsAt(s, i+1, 10)
			if k == 0 || !scale.IsInt64() || scale.Int64() > maxExponent {
				scale.SetInt64(int64(fracDigits))
			}
			return normRat(value), i + 1 + k, int(scale.Int64())
		}
		return normRat(value), i, -1
	}
	if mode == readDecimal && !hasExp {
		return normRat(value), i, fracDigits
	}
	if hasExp {
		power := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(abs(exp))), nil))
		if exp < 0 {
			value.Quo(value, power)
		} else {
			value.Mul(value, power)
		}
	}
	if fracDigits == 0 && exp >= 0 {
		return normRat(value), i, -1
	}
	f, _ := value.Float64()
	if neg && f == 0 {
		f = math.Copysign(0, -1)
	}
	return f, i, -1
}

func isLetter(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func smallAdd(x, y int64) (int64, bool) { return x + y, true }
func smallSub(x, y int64) (int64, bool) { return x - y, true }

// smallMul multiplies when the product surely fits in int64.
func smallMul(x, y int64) (int64, bool) {
	if x > -(1<<30) && x < 1<<30 && y > -(1<<30) && y < 1<<30 {
		return x * y, true
	}
	return 0, false
}

// zeroDivide signals ZeroDivide for a division of dividend by zero, as
// Pharo's primitives' failure code does: no message text, the dividend
// kept.
func (in *Interp) zeroDivide(dividend Object) Object {
	return in.Send(in.classes["ZeroDivide"], "signalWithDividend:", dividend)
}

// piDigits is pi to 80 decimal places, for roundedAtan.
const piDigits = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899"

// roundedAtan answers the Float nearest to the arc tangent of x, as the C
// library Pharo's VM calls answers it nearly always (glibc's atan: 5997 of
// 6000 random arguments alike, Go's math.Atan 4932, a unit in the last
// place away: 77 sqrt / 3 gave 1.2413720463869882 instead of Pharo's
// 1.2413720463869884), at some 10 µs a call against 20 ns. It sums the
// series of atan at 128 bits, once the argument is brought to at most 1
// (atan x = pi/2 - atan 1/x) and then below 1/8 by halving the angle
// (atan v = 2 atan (v / (1 + sqrt (1 + v²)))).
func roundedAtan(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return math.Atan(x)
	}
	const prec = 128
	newF := func() *big.Float { return new(big.Float).SetPrec(prec) }
	one := newF().SetInt64(1)
	v := newF().SetFloat64(math.Abs(x))
	inverted := v.Cmp(one) > 0
	if inverted {
		v.Quo(one, v)
	}
	halvings := 0
	for eighth := newF().SetFloat64(0.125); v.Cmp(eighth) > 0; halvings++ {
		s := newF().Mul(v, v)
		s.Add(s, one)
		s.Sqrt(s)
		s.Add(s, one)
		v.Quo(v, s)
	}
	// v - v^3/3 + v^5/5 - ...: each term is 64 times smaller at least
	sum, power, square := newF().Set(v), newF().Set(v), newF().Mul(v, v)
	for k := int64(1); k < 40; k++ {
		power.Mul(power, square)
		power.Neg(power)
		term := newF().Quo(power, newF().SetInt64(2*k+1))
		sum.Add(sum, term)
		if term.MantExp(nil) < sum.MantExp(nil)-prec {
			break
		}
	}
	sum.SetMantExp(sum, halvings)
	if inverted {
		halfPi, _ := newF().SetString(piDigits)
		halfPi.Quo(halfPi, newF().SetInt64(2))
		sum.Sub(halfPi, sum)
	}
	f, _ := sum.Float64()
	if x < 0 {
		return -f
	}
	return f
}
