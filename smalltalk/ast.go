package smalltalk

// Node is any AST node. Start and End are byte offsets into the parsed
// source; End is exclusive, so src[n.Start():n.End()] is the node's text.
type Node interface {
	Start() int
	End() int
	span() *Span
}

// Span is the source range of a node. It is embedded in every node type.
type Span struct {
	StartPos int // offset of the first byte
	EndPos   int // offset just past the last byte
	// Parens counts the parentheses written around an expression; the
	// range includes them, as in RBParser.
	Parens int
}

// Start is the offset of the node's first byte.
func (s *Span) Start() int { return s.StartPos }

// End is the offset just past the node's last byte.
func (s *Span) End() int { return s.EndPos }

func (s *Span) span() *Span { return s }

// Method is a parsed method: its pattern, pragmas and body.
type Method struct {
	Span
	Source   string      // the parsed text, which the offsets refer to
	Selector string      // foo, +, at:put:
	Args     []*Variable // the pattern's argument names
	Temps    []*Variable // the method temporaries (the same slice as Body.Temps)
	Pragmas  []*Pragma   // in source order, before or after the temporaries
	Body     *Sequence
	// Warnings are what Pharo's compiler accepts but flags, in source order.
	Warnings []Warning
}

// WarningKind says what a Warning is about.
type WarningKind uint8

// The warning kinds.
const (
	// WarnUnreachable marks the first statement after a return in a
	// sequence: Pharo compiles it, but it never runs.
	WarnUnreachable WarningKind = iota + 1
)

// Warning is something Pharo compiles but flags, such as unreachable code.
type Warning struct {
	Kind    WarningKind
	Message string // in Pharo's words, e.g. "Unreachable code"
	Offset  int    // byte offset into the parsed source
	Line    int    // 1-based
	Col     int    // 1-based, in runes
}

// Sequence is a list of statements with optional temporaries: a method body,
// a block body, or a doIt.
type Sequence struct {
	Span
	Temps      []*Variable
	Statements []Node
}

// Return is ^ Value.
type Return struct {
	Span
	Value Node
}

// Assignment is Variable := Value. A chained assignment a := b := 3 is an
// Assignment whose Value is another Assignment.
type Assignment struct {
	Span
	Variable *Variable
	Value    Node
}

// Message is a unary, binary or keyword send.
type Message struct {
	Span
	// Receiver is nil for the parts of a Cascade, whose common receiver is
	// Cascade.Receiver.
	Receiver    Node
	Selector    string // foo, +, at:put:
	SelectorPos int    // offset of the selector (its first keyword)
	Args        []Node
}

// Cascade is Receiver m1; m2; m3 — every message goes to Receiver.
type Cascade struct {
	Span
	Receiver Node
	Messages []*Message
}

// Variable is a name: a reference in an expression, or a declaration in
// Method.Args, Sequence.Temps and Block.Args.
type Variable struct {
	Span
	Name string
}

// LiteralKind says what a Literal is.
type LiteralKind uint8

// The literal kinds.
const (
	LitNumber    LiteralKind = iota + 1 // 3 -5 16r1F 1.5e-3 2s2
	LitString                           // 'it''s'
	LitCharacter                        // $a
	LitSymbol                           // #foo #at:put: #+ #'with space'; bare words in #( )
	LitArray                            // #( … )
	LitByteArray                        // #[ … ]
	LitTrue                             // true
	LitFalse                            // false
	LitNil                              // nil
	// LitName is a bare identifier, found only as an argument of a
	// <primitive: …> pragma, where `error: ec` declares the temporary ec.
	LitName
)

var literalKindNames = [...]string{
	LitNumber: "Number", LitString: "String", LitCharacter: "Character",
	LitSymbol: "Symbol", LitArray: "Array", LitByteArray: "ByteArray",
	LitTrue: "True", LitFalse: "False", LitNil: "Nil", LitName: "Name",
}

// String names the kind ("Number", "Symbol", …).
func (k LiteralKind) String() string {
	if int(k) < len(literalKindNames) && literalKindNames[k] != "" {
		return literalKindNames[k]
	}
	return "LiteralKind(?)"
}

// Literal is a literal constant.
type Literal struct {
	Span
	Kind LiteralKind
	// Value is the unescaped value of a string, symbol or character (without
	// quotes or #), and the source text of every other kind ("16r1F",
	// "true", "#(1 2)").
	Value string
	// Elements are the elements of an Array or ByteArray.
	Elements []*Literal
}

// Block is [:a :b | | t | statements].
type Block struct {
	Span
	Args []*Variable
	Body *Sequence
}

// DynamicArray is { e1. e2 }.
type DynamicArray struct {
	Span
	Elements []Node
}

// Pragma is <selector args>, e.g. <primitive: 60>.
type Pragma struct {
	Span
	Selector string
	Args     []*Literal
}

// Walk calls fn for n and then, if fn returns true, walks n's children in
// source order. Declarations (method and block arguments, temporaries) are
// visited as *Variable nodes too.
func Walk(n Node, fn func(Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	for _, c := range children(n) {
		Walk(c, fn)
	}
}

// children lists a node's direct children in source order.
func children(n Node) []Node {
	var out []Node
	switch n := n.(type) {
	case *Method:
		out = appendVars(out, n.Args)
		for _, p := range n.Pragmas {
			out = append(out, p)
		}
		out = append(out, n.Body)
	case *Sequence:
		out = appendVars(out, n.Temps)
		out = append(out, n.Statements...)
	case *Return:
		out = append(out, n.Value)
	case *Assignment:
		out = append(out, n.Variable, n.Value)
	case *Message:
		if n.Receiver != nil {
			out = append(out, n.Receiver)
		}
		out = append(out, n.Args...)
	case *Cascade:
		out = append(out, n.Receiver)
		for _, m := range n.Messages {
			out = append(out, m)
		}
	case *Literal:
		out = appendLiterals(out, n.Elements)
	case *Block:
		out = appendVars(out, n.Args)
		out = append(out, n.Body)
	case *DynamicArray:
		out = append(out, n.Elements...)
	case *Pragma:
		out = appendLiterals(out, n.Args)
	}
	return out
}

func appendVars(out []Node, vs []*Variable) []Node {
	for _, v := range vs {
		out = append(out, v)
	}
	return out
}

func appendLiterals(out []Node, ls []*Literal) []Node {
	for _, l := range ls {
		out = append(out, l)
	}
	return out
}
