package interp

import (
	"iter"
	"maps"
	"math"
	"math/big"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

type primitive func(in *Interp, rcv Object, args []Object) (Object, bool)

// primitives are the Go half of the kernel, by the name a kernel method
// gives in <primitive: 'name'>. A primitive that answers false lets the
// method's Smalltalk body run (the failure code).
var primitives map[string]primitive

func init() {
	primitives = map[string]primitive{
		// Object
		"class":        func(in *Interp, r Object, a []Object) (Object, bool) { return in.classOf(r), true },
		"identical":    func(in *Interp, r Object, a []Object) (Object, bool) { return identical(r, a[0]), true },
		"identityHash": func(in *Interp, r Object, a []Object) (Object, bool) { return in.identityHash(r), true },
		"shallowCopy":  primShallowCopy,
		"instVarAt":    primInstVarAt,
		"instVarAtPut": primInstVarAtPut,
		"basicSize":    primBasicSize,
		"basicAt":      primBasicAt,
		"basicAtPut":   primBasicAtPut,
		"perform":      primPerform,
		"performWith":  primPerformWithArgs,
		"respondsTo": func(in *Interp, r Object, a []Object) (Object, bool) {
			return in.classOf(r).lookup(symOf(a[0])) != nil, true
		},
		"becomeForward": func(in *Interp, r Object, a []Object) (Object, bool) { return nil, false },
		"printClassName": func(in *Interp, r Object, a []Object) (Object, bool) {
			return in.newString(in.printName(r)), true
		},
		"missing": func(in *Interp, r Object, a []Object) (Object, bool) {
			panic(&Missing{What: str(a[0])})
		},
		// Behavior
		"basicNew":     primBasicNew,
		"basicNewSize": primBasicNewSize,
		"className":    primClassName,
		"superclass":   primSuperclass,
		"includesSelector": func(in *Interp, r Object, a []Object) (Object, bool) {
			_, ok := r.(*Class).methods[symOf(a[0])]
			return ok, true
		},
		"canUnderstand": func(in *Interp, r Object, a []Object) (Object, bool) {
			return r.(*Class).lookup(symOf(a[0])) != nil, true
		},
		"selectors":     primSelectors,
		"instanceClass": func(in *Interp, r Object, a []Object) (Object, bool) { return r.(*Class).thisClass, true },
		"isMeta":        func(in *Interp, r Object, a []Object) (Object, bool) { return r.(*Class).thisClass != nil, true },
		"category":      func(in *Interp, r Object, a []Object) (Object, bool) { return in.newString(r.(*Class).category), true },
		"instVarNames": func(in *Interp, r Object, a []Object) (Object, bool) {
			var out []Object
			for _, n := range r.(*Class).ivarNames {
				out = append(out, Symbol(n))
			}
			return in.newArray(out), true
		},
		"subclasses": primSubclasses,
		"hasPragma": func(in *Interp, r Object, a []Object) (Object, bool) {
			m := r.(*Class).lookup(symOf(a[0]))
			if m == nil {
				return false, true
			}
			for _, p := range m.pragmas {
				if p == symOf(a[1]) {
					return true, true
				}
			}
			return false, true
		},
		"globalAt": func(in *Interp, r Object, a []Object) (Object, bool) {
			if b, ok := in.globals[symOf(a[0])]; ok {
				return b.Value, true
			}
			return nil, false
		},
		"globalIncludes": func(in *Interp, r Object, a []Object) (Object, bool) {
			_, ok := in.globals[symOf(a[0])]
			return ok, true
		},
		"globalAtPut": func(in *Interp, r Object, a []Object) (Object, bool) {
			if _, ok := in.globals[symOf(a[0])]; !ok {
				in.charge(entryBytes)
			}
			in.globals[symOf(a[0])] = &Binding{Name: symOf(a[0]), Value: a[1]}
			return a[1], true
		},
		// exceptions and blocks
		"signal":      func(in *Interp, r Object, a []Object) (Object, bool) { return in.signal(r.(*Instance)), true },
		"onDo":        func(in *Interp, r Object, a []Object) (Object, bool) { return in.onDo(r.(*Block), a[0], a[1]), true },
		"ensure":      primEnsure,
		"ifCurtailed": primIfCurtailed,
		"exReturn": func(in *Interp, r Object, a []Object) (Object, bool) {
			s := in.state(r.(*Instance))
			if s.h == nil {
				return nil, false
			}
			in.unwindTo(s.h, a[0])
			return nil, false
		},
		"exRetry": func(in *Interp, r Object, a []Object) (Object, bool) {
			s := in.state(r.(*Instance))
			if s.h == nil {
				return nil, false
			}
			in.retry(s.h, nil)
			return nil, false
		},
		"exResume": func(in *Interp, r Object, a []Object) (Object, bool) {
			in.resume(&resuming{exc: r.(*Instance), value: a[0]})
			return nil, false
		},
		"exOuter": func(in *Interp, r Object, a []Object) (Object, bool) {
			exc := r.(*Instance)
			s := in.state(exc)
			if s.h == nil {
				return in.Send(exc, "defaultAction"), true
			}
			return in.signalFrom(exc, s.hidx-1), true
		},
		"exHandled": func(in *Interp, r Object, a []Object) (Object, bool) { return in.state(r.(*Instance)).h != nil, true },
		"unhandledError": func(in *Interp, r Object, a []Object) (Object, bool) {
			panic(&unhandled{exc: r.(*Instance)})
		},
		"numArgs": func(in *Interp, r Object, a []Object) (Object, bool) { return int64(len(r.(*Block).node.Args)), true },
		"value":   primValue,
		"valueWithArguments": func(in *Interp, r Object, a []Object) (Object, bool) {
			arr, ok := a[0].(*Instance)
			if !ok || len(arr.indexed) != len(r.(*Block).node.Args) {
				return nil, false
			}
			return in.callBlock(r.(*Block), append([]Object{}, arr.indexed...)), true
		},
		"blockSource": func(in *Interp, r Object, a []Object) (Object, bool) {
			b := r.(*Block)
			return in.newString(b.m.source[b.node.Start():b.node.End()]), true
		},
		// numbers
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
			in.chargeBits(r.(*big.Rat).Num().BitLen())
			return normInt(new(big.Int).Set(r.(*big.Rat).Num())), true
		},
		"denominator": func(in *Interp, r Object, a []Object) (Object, bool) {
			in.chargeBits(r.(*big.Rat).Denom().BitLen())
			return normInt(new(big.Int).Set(r.(*big.Rat).Denom())), true
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
			return in.newString(formatFloat(r.(float64))), true
		},
		"floatSpecial": func(in *Interp, r Object, a []Object) (Object, bool) {
			f := r.(float64)
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
		"hashNumber":     func(in *Interp, r Object, a []Object) (Object, bool) { return hashNumber(r), true },
		"isSmallInteger": func(in *Interp, r Object, a []Object) (Object, bool) { _, ok := r.(int64); return ok, true },
		// characters
		"charValue": func(in *Interp, r Object, a []Object) (Object, bool) { return int64(r.(Char)), true },
		"charFromValue": func(in *Interp, r Object, a []Object) (Object, bool) {
			v, ok := a[0].(int64)
			if !ok || v < 0 || v > maxCharacterValue {
				return nil, false
			}
			return Char(rune(v)), true
		},
		// strings and symbols
		"strSize":  func(in *Interp, r Object, a []Object) (Object, bool) { return int64(len(runesOf(r))), true },
		"strAt":    primStrAt,
		"strAtPut": primStrAtPut,
		"strNew": func(in *Interp, r Object, a []Object) (Object, bool) {
			n, ok := a[0].(int64)
			if !ok || n < 0 || n > 1<<26 {
				return nil, false
			}
			// a new string holds n NUL characters, as Pharo's does
			in.chargeRunes(int(n))
			o := in.newInstance(r.(*Class))
			o.str = make([]rune, n)
			return o, true
		},
		"strEq": func(in *Interp, r Object, a []Object) (Object, bool) {
			if !isStringy(a[0]) {
				return false, true
			}
			if _, isSym := r.(Symbol); isSym {
				if _, argSym := a[0].(Symbol); argSym {
					return r == a[0], true
				}
			}
			return string(runesOf(r)) == string(runesOf(a[0])), true
		},
		"strHash": func(in *Interp, r Object, a []Object) (Object, bool) { return hashString(string(runesOf(r))), true },
		"asSymbol": func(in *Interp, r Object, a []Object) (Object, bool) {
			in.chargeRunes(runeCount(r))
			return Symbol(string(runesOf(r))), true
		},
		"asString": func(in *Interp, r Object, a []Object) (Object, bool) { return in.newString(string(runesOf(r))), true },
		"strConcat": func(in *Interp, r Object, a []Object) (Object, bool) {
			if !isStringy(a[0]) {
				return nil, false
			}
			// counted before it is made: doubling a string is the quickest
			// way to ask Go for gigabytes
			n := runeCount(r) + runeCount(a[0])
			in.chargeRunes(n)
			joined := append(append(make([]rune, 0, n), runesOf(r)...), runesOf(a[0])...)
			if _, ok := r.(Symbol); ok {
				// a symbol's concatenation is a symbol, whatever it is joined with
				return Symbol(string(joined)), true
			}
			s := in.newInstance(classOfString(in, r))
			s.str = joined
			return s, true
		},
		"strCopyFromTo": func(in *Interp, r Object, a []Object) (Object, bool) {
			rs := runesOf(r)
			from, ok1 := a[0].(int64)
			to, ok2 := a[1].(int64)
			if !ok1 || !ok2 || from < 1 || to > int64(len(rs)) || to < from-1 {
				return nil, false
			}
			in.chargeRunes(int(to - from + 1))
			if _, ok := r.(Symbol); ok {
				return Symbol(string(rs[from-1 : to])), true
			}
			s := in.newInstance(classOfString(in, r))
			s.str = append([]rune{}, rs[from-1:to]...)
			return s, true
		},
		"strCase": func(in *Interp, r Object, a []Object) (Object, bool) {
			s := string(runesOf(r))
			switch symOf(a[0]) {
			case "upper":
				s = strings.Map(upperCase, s)
			case "lower":
				s = strings.ToLower(s)
			case "trim":
				s = strings.Trim(s, " \t\r\n\f")
			}
			if _, ok := r.(Symbol); ok {
				in.chargeRunes(utf8.RuneCountInString(s))
				return Symbol(s), true
			}
			return in.newString(s), true
		},
		"strIndexOf": func(in *Interp, r Object, a []Object) (Object, bool) {
			s, sub := string(runesOf(r)), string(runesOf(a[0]))
			start, _ := a[1].(int64)
			rs := runesOf(r)
			if start < 1 {
				start = 1
			}
			if int(start) > len(rs)+1 || sub == "" {
				// Pharo finds the empty string nowhere
				return int64(0), true
			}
			prefix := string(rs[:start-1])
			i := strings.Index(s[len(prefix):], sub)
			if i < 0 {
				return int64(0), true
			}
			return int64(len([]rune(s[:len(prefix)+i]))) + 1, true
		},
		"strParseNumber": func(in *Interp, r Object, a []Object) (Object, bool) {
			s := strings.TrimSpace(string(runesOf(r)))
			if s == "" {
				return nil, true
			}
			v := in.parseNumberLenient(s)
			in.chargeNumber(v)
			return v, true
		},
		"strReplaceFrom": func(in *Interp, r Object, a []Object) (Object, bool) {
			dst, ok := r.(*Instance)
			if !ok {
				return nil, false
			}
			from, _ := a[0].(int64)
			to, _ := a[1].(int64)
			start, _ := a[3].(int64)
			src := runesOf(a[2])
			if from < 1 || to > int64(len(dst.str)) || start < 1 || start+(to-from) > int64(len(src)) {
				return nil, false
			}
			copy(dst.str[from-1:to], src[start-1:start+to-from])
			return r, true
		},
		"isSymbol":          func(in *Interp, r Object, a []Object) (Object, bool) { _, ok := r.(Symbol); return ok, true },
		"numArgsOfSelector": func(in *Interp, r Object, a []Object) (Object, bool) { return int64(numArgs(symOf(r))), true },
		// indexed collections
		"arrayNew": func(in *Interp, r Object, a []Object) (Object, bool) {
			n, ok := a[0].(int64)
			if !ok || n < 0 || n > 1<<26 {
				return nil, false
			}
			in.chargeSlots(int(n))
			o := in.newInstance(r.(*Class))
			o.indexed = make([]Object, n)
			return o, true
		},
		"growAdd": func(in *Interp, r Object, a []Object) (Object, bool) {
			o := r.(*Instance)
			in.chargeSlots(1)
			o.indexed = append(o.indexed, a[0])
			return a[0], true
		},
		"growAddFirst": func(in *Interp, r Object, a []Object) (Object, bool) {
			o := r.(*Instance)
			in.chargeSlots(1)
			o.indexed = append([]Object{a[0]}, o.indexed...)
			return a[0], true
		},
		"growInsert": func(in *Interp, r Object, a []Object) (Object, bool) {
			o := r.(*Instance)
			i, ok := a[1].(int64)
			if !ok || i < 1 || i > int64(len(o.indexed))+1 {
				return nil, false
			}
			in.chargeSlots(1)
			o.indexed = append(o.indexed[:i-1], append([]Object{a[0]}, o.indexed[i-1:]...)...)
			return a[0], true
		},
		"growRemoveIndex": func(in *Interp, r Object, a []Object) (Object, bool) {
			o := r.(*Instance)
			i, ok := a[0].(int64)
			if !ok || i < 1 || i > int64(len(o.indexed)) {
				return nil, false
			}
			v := o.indexed[i-1]
			o.indexed = append(o.indexed[:i-1:i-1], o.indexed[i:]...)
			return v, true
		},
		"growRemoveAll": func(in *Interp, r Object, a []Object) (Object, bool) {
			r.(*Instance).indexed = []Object{}
			return r, true
		},
		"sortBlock": primSort,
		// hashed collections
		"tableAt":     primTableAt,
		"tableAtPut":  primTableAtPut,
		"tableRemove": primTableRemove,
		"tableKeys":   primTableKeys,
		"tableValues": primTableValues,
		"tableSize":   func(in *Interp, r Object, a []Object) (Object, bool) { return int64(in.table(r).len()), true },
		"tableIncludes": func(in *Interp, r Object, a []Object) (Object, bool) {
			_, ok := in.table(r).get(in, a[0])
			return ok, true
		},
		"tableInit": func(in *Interp, r Object, a []Object) (Object, bool) { r.(*Instance).dict = newTable(); return r, true },
		// streams of the transcript, kept for the report
		"transcriptShow": func(in *Interp, r Object, a []Object) (Object, bool) { return r, true },
	}
	for name, test := range characterTests {
		primitives["char."+name] = func(in *Interp, r Object, a []Object) (Object, bool) { return test(rune(r.(Char))), true }
	}
	for _, more := range []map[string]primitive{clockPrimitives, streamPrimitives, stringPrimitives, numberPrimitives, collectionPrimitives, objectPrimitives, randomPrimitives} {
		for name, p := range more {
			if _, taken := primitives[name]; taken {
				panic("interp: two primitives are named " + name)
			}
			primitives[name] = p
		}
	}
}

func str(o Object) string { return string(runesOf(o)) }

func symOf(o Object) string {
	switch v := o.(type) {
	case Symbol:
		return string(v)
	case *Instance:
		return string(v.str)
	}
	return ""
}

func isStringy(o Object) bool {
	switch v := o.(type) {
	case Symbol:
		return true
	case *Instance:
		return v.str != nil || v.class.kind == "string"
	}
	return false
}

// runeCount is the size of a String or a Symbol.
func runeCount(o Object) int {
	switch v := o.(type) {
	case Symbol:
		return utf8.RuneCountInString(string(v))
	case *Instance:
		return len(v.str)
	}
	return 0
}

// classOfString is the class of a string made from r: r's own, or String
// for a Symbol.
func classOfString(in *Interp, r Object) *Class {
	if c, ok := r.(*Instance); ok {
		return c.class
	}
	return in.classes["String"]
}

func runesOf(o Object) []rune {
	switch v := o.(type) {
	case Symbol:
		return []rune(string(v))
	case *Instance:
		return v.str
	}
	return nil
}

func numArgs(sel string) int {
	if sel == "" {
		return 0
	}
	if strings.ContainsRune("+-/\\*~<>=@,%|&?!", rune(sel[0])) {
		return 1
	}
	return strings.Count(sel, ":")
}

func identical(a, b Object) bool {
	switch x := a.(type) {
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x == y
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x == y
	case float64:
		// a Float is identical to the Float of the same bits: a NaN to
		// itself, 0.0 not to -0.0
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	// every kind of Object is comparable with ==
	return a == b
}

func (in *Interp) identityHash(o Object) Object {
	switch v := o.(type) {
	case *Instance:
		if h, ok := in.hashes[v]; ok {
			return h
		}
		in.charge(hashBytes)
		in.nextHash++
		in.hashes[v] = in.nextHash
		return in.nextHash
	case *Class:
		return hashString(v.name)
	case Symbol:
		return hashString(string(v))
	case int64:
		return v
	case Char:
		return int64(v)
	case bool:
		if v {
			return int64(1)
		}
		return int64(2)
	case nil:
		return int64(3)
	}
	return int64(7)
}

func hashString(s string) int64 {
	var h uint64 = 1469598103934665603
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return int64(h >> 4)
}

func primShallowCopy(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	if !ok {
		return r, true
	}
	in.chargeInstance(o)
	c := &Instance{class: o.class, vars: append([]Object{}, o.vars...)}
	if o.indexed != nil {
		c.indexed = append([]Object{}, o.indexed...)
	}
	if o.str != nil {
		c.str = append([]rune{}, o.str...)
	}
	if o.dict != nil {
		in.charge(entryBytes * int64(len(o.dict.keys)))
		c.dict = o.dict.copy()
	}
	return c, true
}

func primInstVarAt(in *Interp, r Object, a []Object) (Object, bool) {
	i, ok := a[0].(int64)
	o, ok2 := r.(*Instance)
	if !ok || !ok2 || i < 1 || i > int64(len(o.vars)) {
		return nil, false
	}
	return o.vars[i-1], true
}

func primInstVarAtPut(in *Interp, r Object, a []Object) (Object, bool) {
	i, ok := a[0].(int64)
	o, ok2 := r.(*Instance)
	if !ok || !ok2 || i < 1 || i > int64(len(o.vars)) {
		return nil, false
	}
	o.vars[i-1] = a[1]
	return a[1], true
}

func primBasicSize(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	if !ok {
		return int64(0), true
	}
	if o.str != nil {
		return int64(len(o.str)), true
	}
	return int64(len(o.indexed)), true
}

func primBasicAt(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	i, ok2 := a[0].(int64)
	if !ok || !ok2 || i < 1 || i > int64(len(o.indexed)) {
		return nil, false
	}
	return o.indexed[i-1], true
}

func primBasicAtPut(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	i, ok2 := a[0].(int64)
	if !ok || !ok2 || i < 1 || i > int64(len(o.indexed)) {
		return nil, false
	}
	if o.class.kind == "bytes" {
		if v, ok := a[1].(int64); !ok || v < 0 || v > 255 {
			return nil, false
		}
	}
	o.indexed[i-1] = a[1]
	return a[1], true
}

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

func primStrAt(in *Interp, r Object, a []Object) (Object, bool) {
	rs := runesOf(r)
	i, ok := a[0].(int64)
	if !ok || i < 1 || i > int64(len(rs)) {
		return nil, false
	}
	return Char(rs[i-1]), true
}

func primStrAtPut(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	i, ok2 := a[0].(int64)
	c, ok3 := a[1].(Char)
	if !ok || !ok2 || !ok3 || i < 1 || i > int64(len(o.str)) {
		return nil, false
	}
	o.str[i-1] = rune(c)
	return c, true
}

func primPerform(in *Interp, r Object, a []Object) (Object, bool) {
	sel := symOf(a[0])
	if numArgs(sel) != len(a)-1 {
		return nil, false
	}
	return in.Send(r, sel, a[1:]...), true
}

func primPerformWithArgs(in *Interp, r Object, a []Object) (Object, bool) {
	sel := symOf(a[0])
	arr, ok := a[1].(*Instance)
	if !ok || numArgs(sel) != len(arr.indexed) {
		return nil, false
	}
	return in.Send(r, sel, append([]Object{}, arr.indexed...)...), true
}

func primBasicNew(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := r.(*Class)
	if !ok || c.thisClass != nil {
		return nil, false
	}
	o := in.newInstance(c)
	switch c.kind {
	case "string":
		o.str = []rune{}
	case "variable", "bytes", "words", "weak":
		o.indexed = []Object{}
	case "hashed":
		o.dict = newTable()
	}
	return o, true
}

func primBasicNewSize(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := r.(*Class)
	n, ok2 := a[0].(int64)
	if !ok || !ok2 || n < 0 || n > 1<<26 {
		return nil, false
	}
	if c.kind == "string" {
		in.chargeRunes(int(n))
	} else if c.kind != "hashed" {
		in.chargeSlots(int(n))
	}
	o := in.newInstance(c)
	switch c.kind {
	case "string":
		o.str = make([]rune, n)
	case "bytes":
		o.indexed = make([]Object, n)
		for i := range o.indexed {
			o.indexed[i] = int64(0)
		}
	case "hashed":
		o.dict = newTable()
	default:
		o.indexed = make([]Object, n)
	}
	return o, true
}

// primClassName answers a class's name as Pharo does: a Symbol for a
// class, a String ('Foo class') for a metaclass.
func primClassName(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := r.(*Class)
	if !ok {
		return nil, false
	}
	if c.thisClass != nil {
		return in.newString(c.thisClass.name + " class"), true
	}
	return Symbol(c.name), true
}

func primSuperclass(in *Interp, r Object, a []Object) (Object, bool) {
	c := r.(*Class)
	if c.super == nil {
		return nil, true
	}
	return c.super, true
}

func primSelectors(in *Interp, r Object, a []Object) (Object, bool) {
	return in.sortedSymbols(maps.Keys(r.(*Class).methods)), true
}

// sortedSymbols answers an Array of names as Symbols, in order.
func (in *Interp) sortedSymbols(names iter.Seq[string]) *Instance {
	sorted := slices.Sorted(names)
	out := make([]Object, len(sorted))
	for i, n := range sorted {
		out[i] = Symbol(n)
	}
	return in.newArray(out)
}

func primSubclasses(in *Interp, r Object, a []Object) (Object, bool) {
	c := r.(*Class)
	var names []string
	for n, k := range in.classes {
		if k.super == c {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]Object, len(names))
	for i, n := range names {
		out[i] = in.classes[n]
	}
	return in.newArray(out), true
}

func primEnsure(in *Interp, r Object, a []Object) (result Object, ok bool) {
	done := false
	defer func() {
		if !done && !in.aborting {
			in.Send(a[0], "value")
		}
	}()
	result = in.callBlock(r.(*Block), nil)
	done = true
	in.Send(a[0], "value")
	return result, true
}

func primIfCurtailed(in *Interp, r Object, a []Object) (result Object, ok bool) {
	done := false
	defer func() {
		if !done && !in.aborting {
			in.Send(a[0], "value")
		}
	}()
	result = in.callBlock(r.(*Block), nil)
	done = true
	return result, true
}

func primValue(in *Interp, r Object, a []Object) (Object, bool) {
	b := r.(*Block)
	if len(b.node.Args) != len(a) {
		return nil, false
	}
	return in.callBlock(b, a), true
}

func primSort(in *Interp, r Object, a []Object) (Object, bool) {
	o := r.(*Instance)
	items := o.indexed
	if o.str != nil {
		return nil, false
	}
	sortLikePharo(items, func(x, y Object) bool {
		if a[0] == nil {
			return truthy(in.Send(x, "<=", y))
		}
		return truthy(in.Send(a[0], "value:value:", x, y))
	})
	return r, true
}

func (in *Interp) table(r Object) *table {
	o := r.(*Instance)
	if o.dict == nil {
		o.dict = newTable()
	}
	return o.dict
}

func primTableAt(in *Interp, r Object, a []Object) (Object, bool) {
	v, ok := in.table(r).get(in, a[0])
	return v, ok
}

func primTableAtPut(in *Interp, r Object, a []Object) (Object, bool) {
	in.table(r).put(in, a[0], a[1])
	return a[1], true
}

func primTableRemove(in *Interp, r Object, a []Object) (Object, bool) {
	v, ok := in.table(r).remove(in, a[0])
	return v, ok
}

func primTableKeys(in *Interp, r Object, a []Object) (Object, bool) {
	return in.newArray(in.table(r).keyList()), true
}

func primTableValues(in *Interp, r Object, a []Object) (Object, bool) {
	return in.newArray(in.table(r).valueList()), true
}

func (in *Interp) signalError(class, text string) Object {
	c := in.classes[class]
	if c == nil {
		c = in.classes["Error"]
	}
	e := in.newInstance(c)
	in.Send(e, "messageText:", in.newString(text))
	return in.Send(e, "signal")
}
