package interp

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// numberPrimitives are the Go primitives of the kernel's numbers.
var numberPrimitives = map[string]primitive{
	"add":       arith((*Interp).chargeSum, smallAdd, func(x, y *big.Int) *big.Int { return new(big.Int).Add(x, y) }, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Add(x, y) }, func(x, y float64) float64 { return x + y }),
	"sub":       arith((*Interp).chargeSum, smallSub, func(x, y *big.Int) *big.Int { return new(big.Int).Sub(x, y) }, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Sub(x, y) }, func(x, y float64) float64 { return x - y }),
	"mul":       arith((*Interp).chargeProduct, smallMul, func(x, y *big.Int) *big.Int { return new(big.Int).Mul(x, y) }, func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }, func(x, y float64) float64 { return x * y }),
	"div":       primDivide,
	"intDiv":    primIntDiv(true),
	"intMod":    primIntMod,
	"quo":       primIntDiv(false),
	"rem":       primRem,
	"lt":        compare(func(c int) bool { return c < 0 }),
	"gt":        compare(func(c int) bool { return c > 0 }),
	"le":        compare(func(c int) bool { return c <= 0 }),
	"ge":        compare(func(c int) bool { return c >= 0 }),
	"numEq":     primNumEq,
	"bitAnd":    bitop(func(x, y *big.Int) *big.Int { return new(big.Int).And(x, y) }),
	"bitOr":     bitop(func(x, y *big.Int) *big.Int { return new(big.Int).Or(x, y) }),
	"bitXor":    bitop(func(x, y *big.Int) *big.Int { return new(big.Int).Xor(x, y) }),
	"bitShift":  primBitShift,
	"asFloat":   func(in *Interp, r Object, a []Object) (Object, bool) { f, ok := toFloat(r); return f, ok },
	"truncated": primTruncated,
	"floor":     primFloatFn(math.Floor),
	"ceiling":   primFloatFn(math.Ceil),
	"sqrt": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := toFloat(r)
		return math.Sqrt(f), ok
	},
	"ln":  func(in *Interp, r Object, a []Object) (Object, bool) { return lnOf(r) },
	"exp": func(in *Interp, r Object, a []Object) (Object, bool) { f, ok := toFloat(r); return math.Exp(f), ok },
	"raisedToFloat": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok1 := toFloat(r)
		y, ok2 := toFloat(a[0])
		// as Pharo computes it, through the logarithm: 10 raisedTo: 2.5
		// is 316.22776601683825, one unit in the last place above
		// math.Pow's
		return math.Exp(y * math.Log(x)), ok1 && ok2
	},
	"numerator": func(in *Interp, r Object, a []Object) (Object, bool) {
		q, ok := asFraction(r)
		if !ok {
			return nil, false
		}
		in.chargeBits(q.Num().BitLen())
		return normInt(new(big.Int).Set(q.Num())), true
	},
	"denominator": func(in *Interp, r Object, a []Object) (Object, bool) {
		q, ok := asFraction(r)
		if !ok {
			return nil, false
		}
		in.chargeBits(q.Denom().BitLen())
		return normInt(new(big.Int).Set(q.Denom())), true
	},
	"makeFraction": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok1 := toBig(r)
		y, ok2 := toBig(a[0])
		if !ok1 || !ok2 || y.Sign() == 0 {
			return nil, false
		}
		in.chargeBig(x.BitLen()+y.BitLen(), divisionScratch, x.BitLen()+y.BitLen())
		return normRat(new(big.Rat).SetFrac(x, y)), true
	},
	"gcd": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok1 := toBig(r)
		y, ok2 := toBig(a[0])
		if !ok1 || !ok2 {
			return nil, false
		}
		in.chargeBig(min(x.BitLen(), y.BitLen()), divisionScratch, max(x.BitLen(), y.BitLen()))
		return normInt(new(big.Int).GCD(nil, nil, new(big.Int).Abs(x), new(big.Int).Abs(y))), true
	},
	"printBase": primPrintBase,
	"printFloat": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := asFloat64(r)
		if !ok {
			return nil, false
		}
		return in.newString(formatFloat(f)), true
	},
	"floatSpecial": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := asFloat64(r)
		if !ok {
			return nil, false
		}
		switch symOf(a[0]) {
		case "isNaN":
			return math.IsNaN(f), true
		case "isInfinite":
			return math.IsInf(f, 0), true
		}
		return nil, false
	},
	"floatConst": func(in *Interp, r Object, a []Object) (Object, bool) {
		switch symOf(a[0]) {
		case "nan":
			return math.NaN(), true
		case "negativeZero":
			return math.Copysign(0, -1), true
		case "infinity":
			return math.Inf(1), true
		case "negativeInfinity":
			return math.Inf(-1), true
		case "pi":
			return math.Pi, true
		case "e":
			return math.E, true
		}
		return nil, false
	},
	"hashNumber": func(in *Interp, r Object, a []Object) (Object, bool) { return hashNumber(r), true },
	// aString numberPrefixBase: base reading: #number, #digits or
	// #integer answers {number. characters read} for the number at the
	// start of the string, or nil when it starts with none.
	"numberPrefix": func(in *Interp, r Object, a []Object) (Object, bool) {
		base, ok := a[0].(int64)
		mode, ok2 := map[string]readMode{"number": readNumber, "digits": readDigits, "integer": readInteger, "decimal": readDecimal}[symOf(a[1])]
		if !ok || !ok2 || base < 2 || base > 36 {
			return nil, false
		}
		v, n, scale := readNumberPrefix(runesOf(r), int(base), mode)
		if n == 0 {
			return nil, true
		}
		in.chargeNumber(v)
		return in.newArray([]Object{in.scaled(v, scale), int64(n)}), true
	},
	// the exact value of a number rounded to n decimal places (half away
	// from zero), printed with exactly n digits after the point
	"printDecimalPlaces": func(in *Interp, r Object, a []Object) (Object, bool) {
		n, ok := a[0].(int64)
		x, ok2 := exactValue(r)
		if !ok || !ok2 || n < 0 || n > 10000 {
			return nil, false
		}
		// the digits as Go text and the scratch of making them, before
		// newString counts their characters
		in.chargeBig(0, printScratch, x.Num().BitLen()+x.Denom().BitLen()+4*int(n))
		in.charge(2 * int64(decimalDigits(x.Num().BitLen())+int(n)))
		return in.newString(printDecimalPlaces(x, int(n))), true
	},
	// {the value of a Float's shortest decimal form. its digits after the
	// point}: 6.0e-14 is {(3/50000000000000). 14}
	"floatDecimal": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
		e, _ := strconv.Atoi(exp)
		scale := -e
		if point := strings.IndexByte(mant, '.'); point >= 0 {
			scale += len(mant) - point - 1
		}
		v, _ := new(big.Rat).SetString(mant + "e" + exp)
		return in.newArray([]Object{normRat(v), int64(max(scale, 0))}), true
	},
	// a Float's exact value as an Integer or a Fraction
	"asExactFraction": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return normRat(new(big.Rat).SetFloat64(f)), true
	},
	// the 64 bits of a Float, as a non-negative Integer
	"floatBits": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		if !ok {
			return nil, false
		}
		return normInt(new(big.Int).SetUint64(math.Float64bits(f))), true
	},
	"signBit": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		if !ok {
			return nil, false
		}
		if math.Signbit(f) {
			return int64(1), true
		}
		return int64(0), true
	},
	// self * (2 raisedTo: n), exactly
	"timesTwoPower": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		n, ok2 := a[0].(int64)
		if !ok || !ok2 {
			return nil, false
		}
		n = max(min(n, 4096), -4096)
		return math.Ldexp(f, int(n)), true
	},
	// the exponent of a Float's binary form: 1.0 is 2^0, 0.5 is 2^-1
	"floatExponent": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		if f == 0 {
			return int64(0), true
		}
		_, e := math.Frexp(f)
		return int64(e - 1), true
	},
	// the largest integer whose square is at most a non-negative integer
	"sqrtFloor": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok := toBig(r)
		if !ok || x.Sign() < 0 {
			return nil, false
		}
		in.chargeBig(x.BitLen()/2+1, rootScratch, x.BitLen())
		return normInt(new(big.Int).Sqrt(x)), true
	},
	// aNumber floatMath: #sin (or #arcTan), in Floats; Pharo computes
	// cos, tan, arcSin and arcCos from them (Number.class.st)
	"floatMath": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok := toFloat(r)
		fn, ok2 := map[string]func(float64) float64{"sin": math.Sin, "arcTan": roundedAtan}[symOf(a[0])]
		if !ok || !ok2 {
			return nil, false
		}
		return fn(x), true
	},
	// the integer part of the nth root of an integer (toward zero; a
	// negative integer has odd roots only)
	"nthRootTruncated": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok := toBig(r)
		n, ok2 := a[0].(int64)
		if !ok || !ok2 || n < 1 || n > 1<<20 || (x.Sign() < 0 && n%2 == 0) {
			return nil, false
		}
		in.chargeBig(x.BitLen()/int(n)+1, rootScratch, x.BitLen())
		root := nthRootFloor(new(big.Int).Abs(x), int(n))
		if x.Sign() < 0 {
			root.Neg(root)
		}
		return normInt(root), true
	},
	"isProbablyPrime": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok := toBig(r)
		if !ok {
			return nil, false
		}
		return x.Sign() > 0 && x.ProbablyPrime(20), true
	},
	// the Float next to a Float, above (1) or below (-1)
	"floatNext": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		dir, ok2 := a[0].(int64)
		if !ok || !ok2 {
			return nil, false
		}
		return math.Nextafter(f, math.Inf(int(dir))), true
	},
	// an Integer or a Fraction raised to an integer power, exactly; fails
	// for a Float, a zero to a negative power and a result beyond 16
	// million bits
	"raisedToInteger": func(in *Interp, r Object, a []Object) (Object, bool) {
		n, ok := a[0].(int64)
		x, ok2 := toRat(r)
		if !ok || !ok2 || (x.Sign() == 0 && n < 0) || n < -(1<<24) || n > 1<<24 {
			return nil, false
		}
		k := n
		if k < 0 {
			k = -k
		}
		if int64(max(x.Num().BitLen(), x.Denom().BitLen()))*k > 1<<24 {
			return nil, false
		}
		bits := int(int64(x.Num().BitLen()+x.Denom().BitLen()) * k)
		in.chargeBig(bits, productScratch, bits)
		e := big.NewInt(k)
		num := new(big.Int).Exp(x.Num(), e, nil)
		den := new(big.Int).Exp(x.Denom(), e, nil)
		if n < 0 {
			num, den = den, num
		}
		return normRat(new(big.Rat).SetFrac(num, den)), true
	},
	// Float fromIEEE: bits width: 32 or 64, the Float those bits encode
	"floatFromBits": func(in *Interp, r Object, a []Object) (Object, bool) {
		bits, ok := toBig(a[0])
		width, ok2 := a[1].(int64)
		if !ok || !ok2 || bits.Sign() < 0 || bits.BitLen() > int(width) {
			return nil, false
		}
		switch width {
		case 32:
			return float64(math.Float32frombits(uint32(bits.Uint64()))), true
		case 64:
			return math.Float64frombits(bits.Uint64()), true
		}
		return nil, false
	},
	// the 32 bits of the single precision Float nearest the receiver
	"float32Bits": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		if !ok {
			return nil, false
		}
		return int64(math.Float32bits(float32(f))), true
	},
	// the receiver as a base 2 literal of all its 53 bits: 0.5 is
	// 2r1.0000000000000000000000000000000000000000000000000000e-1
	"floatBinaryLiteral": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := r.(float64)
		if !ok {
			return nil, false
		}
		return in.newString(binaryLiteral(f)), true
	},
	// the index of the highest bit of an integer's magnitude, 0 for 0
	"highBitOfMagnitude": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok := toBig(r)
		if !ok {
			return nil, false
		}
		return int64(x.BitLen()), true
	},
	// the index of the lowest bit set of an integer's magnitude, 0 for 0
	"lowBit": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok := toBig(r)
		if !ok {
			return nil, false
		}
		if x.Sign() == 0 {
			return int64(0), true
		}
		return int64(new(big.Int).Abs(x).TrailingZeroBits() + 1), true
	},
	// the x in 0 <= x < n with self * x \\ n = 1; fails when there is none
	"modInverse": func(in *Interp, r Object, a []Object) (Object, bool) {
		x, ok := toBig(r)
		n, ok2 := toBig(a[0])
		if !ok || !ok2 || n.Sign() <= 0 {
			return nil, false
		}
		in.chargeBig(n.BitLen(), divisionScratch, max(x.BitLen(), n.BitLen()))
		inv := new(big.Int).ModInverse(new(big.Int).Mod(x, n), n)
		if inv == nil {
			return nil, false
		}
		return normInt(inv), true
	},
	// normalizeBytes answers the integer a LargePositiveInteger or
	// LargeNegativeInteger built byte by byte (new:, byteAt:put:) stands
	// for, its bytes least significant first; an integer answers itself.
	"normalizeBytes": primNormalizeBytes,
}

// exactValue is the exact value of an Integer, a Fraction or a finite
// Float.
func exactValue(o Object) (*big.Rat, bool) {
	if f, ok := o.(float64); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(f), true
	}
	return toRat(o)
}

// printDecimalPlaces prints x rounded half away from zero to n places,
// with a minus only when what is printed is not zero.
func printDecimalPlaces(x *big.Rat, n int) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	v := new(big.Rat).Mul(new(big.Rat).Abs(x), new(big.Rat).SetInt(scale))
	// floor(v + 1/2)
	v.Add(v, big.NewRat(1, 2))
	q := new(big.Int).Quo(v.Num(), v.Denom())
	digits := q.String()
	if len(digits) <= n {
		digits = strings.Repeat("0", n-len(digits)+1) + digits
	}
	s := digits
	if n > 0 {
		s = digits[:len(digits)-n] + "." + digits[len(digits)-n:]
	}
	if x.Sign() < 0 && q.Sign() != 0 {
		s = "-" + s
	}
	return s
}

// nthRootFloor is the largest r with r^n <= x, for x >= 0, by Newton's
// iteration from above.
func nthRootFloor(x *big.Int, n int) *big.Int {
	if x.Sign() == 0 || n == 1 {
		return new(big.Int).Set(x)
	}
	bn, bn1 := big.NewInt(int64(n)), big.NewInt(int64(n-1))
	s := new(big.Int).Lsh(big.NewInt(1), uint((x.BitLen()+n-1)/n)) // at least the root
	for {
		// t = ((n-1) s + x / s^(n-1)) / n
		p := new(big.Int).Exp(s, bn1, nil)
		t := new(big.Int).Quo(x, p)
		t.Add(t, new(big.Int).Mul(bn1, s))
		t.Quo(t, bn)
		if t.Cmp(s) >= 0 {
			return s
		}
		s = t
	}
}

// binaryLiteral writes a Float in radix 2 with its 52 stored fraction bits
// after the point, an exponent always; the specials as expressions.
func binaryLiteral(f float64) string {
	switch {
	case math.IsNaN(f):
		return "Float nan"
	case math.IsInf(f, 1):
		return "Float infinity"
	case math.IsInf(f, -1):
		return "Float infinity negated"
	case f == 0:
		return formatFloat(f)
	}
	bits := math.Float64bits(f)
	sign := ""
	if bits>>63 == 1 {
		sign = "-"
	}
	exp := int(bits>>52) & 0x7FF
	fraction := strconv.FormatUint(bits&(1<<52-1), 2)
	fraction = strings.Repeat("0", 52-len(fraction)) + fraction
	lead := "1"
	if exp == 0 {
		lead, exp = "0", 1 // subnormal: 0.fraction times 2^-1022
	}
	return sign + "2r" + lead + "." + fraction + "e" + strconv.Itoa(exp-1023)
}

func primNormalizeBytes(in *Interp, r Object, a []Object) (Object, bool) {
	switch v := r.(type) {
	case int64, *big.Int:
		return v, true
	}
	o, ok := r.(*Instance)
	if !ok || o.class.kind != "bytes" || !inheritsFrom(o.class, "LargePositiveInteger") {
		return nil, false
	}
	bytes := make([]byte, len(o.indexed))
	for i, b := range o.indexed {
		v, isInt := b.(int64)
		if !isInt || v < 0 || v > 255 {
			return nil, false
		}
		bytes[len(bytes)-1-i] = byte(v) // big.Int reads the most significant first
	}
	in.chargeBits(8 * len(bytes))
	n := new(big.Int).SetBytes(bytes)
	if inheritsFrom(o.class, "LargeNegativeInteger") {
		n.Neg(n)
	}
	return normInt(n), true
}
