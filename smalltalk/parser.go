package smalltalk

import "strings"

// Parser error messages. Those Pharo has are in Pharo's words; "Argument
// name expected" and the byte array message follow the service's contract.
const (
	msgExprExpected     = "Variable or expression expected"
	msgVariableExpected = "Variable expected"
	msgParenExpected    = "')' expected"
	msgBracketExpected  = "']' expected"
	msgBraceExpected    = "'}' expected"
	msgGtExpected       = "'>' expected"
	msgEndOfStatement   = "End of statement expected"
	msgCascadeExpected  = "Cascade message expected"
	msgPatternExpected  = "Message pattern expected"
	msgArgNameExpected  = "Argument name expected"
	msgTempBarExpected  = "'|' or variable expected"
	msgBlockBarExpected = "'|' or parameter expected"
	msgByteExpected     = "byte array element must be 0-255"
	msgUnreachable      = "Unreachable code"
	msgMissingOpener    = "Missing opener for closer: "
	msgNestedTooDeep    = "Expression nested too deeply"
	maxDepth            = 500 // nesting of expressions and literal arrays
)

// ParseMethod parses the source of one method: its pattern (foo, + other,
// at: i put: v), pragmas before or after the temporaries, temporaries and
// statements. The error, if any, is a *SyntaxError.
func ParseMethod(src string) (*Method, error) {
	var m *Method
	if err := catch(func() {
		p := newParser(src)
		m = p.parseMethod()
		m.Warnings = p.warnings
	}); err != nil {
		return nil, err
	}
	return m, nil
}

// ParseExpression parses a doIt: optional temporaries and statements, with
// no method pattern. The error, if any, is a *SyntaxError. Warnings (such
// as unreachable statements) do not stop it and are not reported.
func ParseExpression(src string) (*Sequence, error) {
	var s *Sequence
	if err := catch(func() { s = newParser(src).parseSequence(0, nil) }); err != nil {
		return nil, err
	}
	return s, nil
}

// bailout carries a syntax error up the recursive descent; it never
// escapes the package (see catch).
type bailout struct{ err *SyntaxError }

// catch runs f and turns a bailout into its error. Any other panic is a bug
// and is not hidden.
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	f()
	return nil
}

type parser struct {
	src      string
	sc       scanner
	tok      token
	prevEnd  int // end of the last consumed token
	depth    int
	warnings []Warning
}

func newParser(src string) *parser {
	p := &parser{src: src, sc: scanner{src: src}}
	p.next()
	return p
}

func (p *parser) next() {
	p.prevEnd = p.tok.end
	p.tok = p.sc.next()
}

func (p *parser) text() string { return p.src[p.tok.start:p.tok.end] }

func (p *parser) isSpecial(c byte) bool {
	return p.tok.kind == tSpecial && p.src[p.tok.start] == c
}

func (p *parser) isBinary(op string) bool {
	return p.tok.kind == tBinary && p.text() == op
}

// isBar reports a binary token starting with |: temporaries and block
// arguments end with a bar that the scanner may have glued to more binary
// characters (||, |>).
func (p *parser) isBar() bool {
	return p.tok.kind == tBinary && p.src[p.tok.start] == '|'
}

// stepBar consumes only the first | of the current token, as RBParser's
// stepBar does, so that [:a || t | … ] and || (empty temporaries) work.
func (p *parser) stepBar() { p.stepFirstByte() }

// stepFirstByte consumes the first (ASCII) character of the current binary
// token and leaves the rest of the run as the current token.
func (p *parser) stepFirstByte() {
	if p.tok.end-p.tok.start == 1 {
		p.next()
		return
	}
	p.tok.start++
	p.prevEnd = p.tok.start
}

// fail stops parsing with msg at the current token. When the current token
// is a lexical error, that error is reported instead, as in Pharo.
func (p *parser) fail(msg string) { p.failAt(p.tok.start, msg) }

func (p *parser) failAt(offset int, msg string) {
	if p.tok.kind == tError {
		offset, msg = p.tok.aux, lexMessages[p.tok.err]
	}
	panic(bailout{newSyntaxError(p.src, offset, msg)})
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(msgNestedTooDeep)
	}
}

func (p *parser) leave() { p.depth-- }

func isLiteralName(s string) bool { return s == "true" || s == "false" || s == "nil" }

// parseMethod: pattern, pragmas, then temporaries, pragmas and statements.
func (p *parser) parseMethod() *Method {
	m := &Method{Source: p.src}
	m.StartPos = p.tok.start
	p.parsePattern(m)
	m.Pragmas = p.parsePragmas(m.Pragmas)
	m.Body = p.parseSequence(0, m)
	m.Temps = m.Body.Temps
	m.EndPos = max(p.prevEnd, m.StartPos)
	return m
}

func (p *parser) parsePattern(m *Method) {
	switch p.tok.kind {
	case tIdent: // true, false and nil are fine selectors here
		m.Selector = p.text()
		p.next()
	case tBinary:
		m.Selector = p.text()
		p.next()
		m.Args = append(m.Args, p.parseArgName())
	case tKeyword:
		var sel selectorBuilder
		for p.tok.kind == tKeyword {
			sel.add(p.text())
			p.next()
			m.Args = append(m.Args, p.parseArgName())
		}
		m.Selector = sel.String()
	default:
		p.fail(msgPatternExpected)
	}
}

// selectorBuilder joins keyword parts, allocating only for two or more.
type selectorBuilder struct {
	first string
	b     []byte
}

func (s *selectorBuilder) add(part string) {
	switch {
	case s.first == "":
		s.first = part
	case s.b == nil:
		s.b = append(append(make([]byte, 0, 2*len(s.first)+len(part)), s.first...), part...)
	default:
		s.b = append(s.b, part...)
	}
}

func (s *selectorBuilder) String() string {
	if s.b == nil {
		return s.first
	}
	return string(s.b)
}

// parseArgName reads an argument name of a pattern or block.
func (p *parser) parseArgName() *Variable {
	if p.tok.kind != tIdent || isLiteralName(p.text()) {
		p.fail(msgArgNameExpected)
	}
	return p.variable()
}

func (p *parser) variable() *Variable {
	v := &Variable{Span: Span{StartPos: p.tok.start, EndPos: p.tok.end}, Name: p.text()}
	p.next()
	return v
}

// parsePragmas parses the pragmas at the current position. No statement
// starts with a binary operator, so a binary token starting with < opens a
// pragma even when the scanner glued the pragma's own binary selector to it
// (<+ 1> scans as <+ then 1>).
func (p *parser) parsePragmas(list []*Pragma) []*Pragma {
	for p.tok.kind == tBinary && p.src[p.tok.start] == '<' {
		list = append(list, p.parsePragma())
	}
	return list
}

func (p *parser) parsePragma() *Pragma {
	pr := &Pragma{}
	pr.StartPos = p.tok.start
	p.stepFirstByte()
	switch p.tok.kind {
	case tIdent:
		if isLiteralName(p.text()) {
			p.fail(msgPatternExpected)
		}
		pr.Selector = p.text()
		p.next()
	case tKeyword:
		// In <primitive: …> Pharo takes any token as an argument; the one
		// that matters is the name after error:.
		primitive := p.text() == "primitive:"
		var sel selectorBuilder
		for p.tok.kind == tKeyword {
			sel.add(p.text())
			p.next()
			pr.Args = append(pr.Args, p.parsePragmaLiteral(primitive))
		}
		pr.Selector = sel.String()
	case tBinary:
		pr.Selector = p.text()
		p.next()
		pr.Args = append(pr.Args, p.parsePragmaLiteral(false))
	default:
		p.fail(msgPatternExpected)
	}
	if !p.isBinary(">") {
		p.fail(msgGtExpected)
	}
	pr.EndPos = p.tok.end
	p.next()
	return pr
}

func (p *parser) parsePragmaLiteral(primitive bool) *Literal {
	switch p.tok.kind {
	case tNumber, tString, tChar, tSymbol, tMultiKeyword:
		return p.literal()
	case tLitArray:
		return p.parseLiteralArray()
	case tByteArray:
		return p.parseByteArray()
	case tIdent:
		if l := p.literalName(); l != nil {
			return l
		}
		if primitive {
			l := p.tokenLiteral(LitName, p.text())
			p.next()
			return l
		}
	}
	p.fail(msgLiteralExpected)
	return nil
}

// parseSequence parses temporaries and statements up to closer (0: the end
// of input). For a method body m is the method, whose pragmas may also
// follow the temporaries.
func (p *parser) parseSequence(closer byte, m *Method) *Sequence {
	seq := &Sequence{}
	// An empty sequence sits right after what precedes it, inside its parent.
	seq.StartPos, seq.EndPos = p.prevEnd, p.prevEnd
	hasTemps := p.parseTemps(seq)
	if m != nil {
		m.Pragmas = p.parsePragmas(m.Pragmas)
	}
	p.parseStatements(closer, &seq.Statements)
	if n := len(seq.Statements); n > 0 {
		if !hasTemps {
			seq.StartPos = seq.Statements[0].Start()
		}
		seq.EndPos = seq.Statements[n-1].End()
	}
	return seq
}

// parseTemps parses | a b | (or ||) and reports whether there was one.
func (p *parser) parseTemps(seq *Sequence) bool {
	if !p.isBar() {
		return false
	}
	seq.StartPos = p.tok.start
	p.stepBar()
	for p.tok.kind == tIdent && !isLiteralName(p.text()) {
		seq.Temps = append(seq.Temps, p.variable())
	}
	if !p.isBar() {
		p.fail(msgTempBarExpected)
	}
	seq.EndPos = p.tok.start + 1
	p.stepBar()
	return true
}

func (p *parser) skipPeriods() {
	for p.isSpecial('.') {
		p.next()
	}
}

// parseStatements parses statements separated by periods (extra periods are
// fine) until the end of input or the closer of the enclosing construct.
func (p *parser) parseStatements(closer byte, out *[]Node) {
	p.skipPeriods()
	for p.tok.kind != tEOF && !(closer != 0 && p.isSpecial(closer)) {
		p.parseStatement(closer, out)
	}
}

func (p *parser) parseStatement(closer byte, out *[]Node) {
	start := p.tok.start
	var node Node
	if p.isSpecial('^') {
		p.next()
		v := p.parseExpr()
		node = &Return{Span: Span{StartPos: start, EndPos: v.End()}, Value: v}
	} else {
		node = p.parseExpr()
	}
	if p.tok.kind == tSpecial {
		if c := p.src[p.tok.start]; strings.IndexByte(")]}", c) >= 0 && c != closer {
			p.fail(msgMissingOpener + string(c))
		}
	}
	if !p.isSpecial('.') && !(closer != 0 && p.isSpecial(closer)) && p.tok.kind != tEOF {
		p.fail(msgEndOfStatement)
	}
	p.skipPeriods()
	if n := len(*out); n > 0 {
		if _, ok := (*out)[n-1].(*Return); ok {
			// Pharo compiles it and only warns: the statement never runs.
			p.warn(WarnUnreachable, start, msgUnreachable)
		}
	}
	*out = append(*out, node)
}

func (p *parser) warn(kind WarningKind, offset int, msg string) {
	line, col := LineCol(p.src, offset)
	p.warnings = append(p.warnings, Warning{Kind: kind, Message: msg, Offset: offset, Line: line, Col: col})
}

// parseExpr parses an assignment or a cascade: the expression of a
// statement, of a parenthesis, or of an assignment's right side.
func (p *parser) parseExpr() Node {
	p.enter()
	defer p.leave()
	if p.tok.kind == tAssign {
		p.fail(msgVariableExpected)
	}
	if p.tok.kind != tIdent || isLiteralName(p.text()) {
		return p.parseCascade(p.parsePrimary())
	}
	v := p.variable()
	if p.tok.kind != tAssign {
		return p.parseCascade(v)
	}
	p.next()
	val := p.parseExpr()
	return &Assignment{Span: Span{StartPos: v.StartPos, EndPos: val.End()}, Variable: v, Value: val}
}

// parseCascade continues from a primary through unary, binary and keyword
// messages, then the cascade parts after each ;.
func (p *parser) parseCascade(primary Node) Node {
	node := p.parseKeyword(p.parseBinary(p.parseUnary(primary)))
	if !p.isSpecial(';') {
		return node
	}
	first, ok := node.(*Message)
	if !ok || first.Parens > 0 {
		p.fail(msgCascadeExpected) // 7; foo and (a foo); bar are not cascades
	}
	c := &Cascade{Receiver: first.Receiver, Messages: []*Message{first}}
	first.Receiver = nil
	first.StartPos = first.SelectorPos
	for p.isSpecial(';') {
		p.next()
		c.Messages = append(c.Messages, p.parseCascadePart())
	}
	c.StartPos = c.Receiver.Start()
	c.EndPos = c.Messages[len(c.Messages)-1].End()
	return c
}

// parseCascadePart parses the one message after a ;.
func (p *parser) parseCascadePart() *Message {
	p.patchNegative()
	switch p.tok.kind {
	case tIdent:
		return p.unaryMessage(nil)
	case tKeyword:
		return p.keywordMessage(nil)
	case tBinary:
		return p.binaryMessage(nil)
	}
	p.fail(msgCascadeExpected)
	return nil
}

func (p *parser) parseUnary(node Node) Node {
	for p.tok.kind == tIdent { // x true is a send of #true, as in Pharo
		node = p.unaryMessage(node)
	}
	return node
}

func (p *parser) parseBinary(node Node) Node {
	for {
		p.patchNegative()
		if p.tok.kind != tBinary {
			return node
		}
		node = p.binaryMessage(node)
	}
}

func (p *parser) parseKeyword(node Node) Node {
	if p.tok.kind != tKeyword {
		return node
	}
	return p.keywordMessage(node)
}

// patchNegative turns a negative number where a binary selector may stand
// back into a minus and a number: x-1 is x - 1.
func (p *parser) patchNegative() {
	if p.tok.kind != tNumber || p.src[p.tok.start] != '-' {
		return
	}
	p.sc.pos = p.tok.start + 1
	p.tok = token{kind: tBinary, start: p.tok.start, end: p.tok.start + 1}
}

func (p *parser) newMessage(recv Node, sel string, selPos int) *Message {
	m := &Message{Receiver: recv, Selector: sel, SelectorPos: selPos}
	m.StartPos = selPos
	if recv != nil {
		m.StartPos = recv.Start()
	}
	return m
}

func (p *parser) unaryMessage(recv Node) *Message {
	m := p.newMessage(recv, p.text(), p.tok.start)
	m.EndPos = p.tok.end
	p.next()
	return m
}

func (p *parser) binaryMessage(recv Node) *Message {
	m := p.newMessage(recv, p.text(), p.tok.start)
	p.next()
	arg := p.parseUnary(p.parsePrimary())
	m.Args = []Node{arg}
	m.EndPos = arg.End()
	return m
}

func (p *parser) keywordMessage(recv Node) *Message {
	m := p.newMessage(recv, "", p.tok.start)
	var sel selectorBuilder
	for p.tok.kind == tKeyword {
		sel.add(p.text())
		p.next()
		arg := p.parseBinary(p.parseUnary(p.parsePrimary()))
		m.Args = append(m.Args, arg)
		m.EndPos = arg.End()
	}
	m.Selector = sel.String()
	return m
}

func (p *parser) parsePrimary() Node {
	switch p.tok.kind {
	case tIdent:
		if l := p.literalName(); l != nil {
			return l
		}
		return p.variable()
	case tNumber, tString, tChar, tSymbol:
		return p.literal()
	case tLitArray:
		return p.parseLiteralArray()
	case tByteArray:
		return p.parseByteArray()
	case tSpecial:
		switch p.src[p.tok.start] {
		case '(':
			return p.parseParen()
		case '[':
			return p.parseBlock()
		case '{':
			return p.parseDynamicArray()
		}
	}
	p.fail(msgExprExpected)
	return nil
}

func (p *parser) parseParen() Node {
	start := p.tok.start
	p.next()
	e := p.parseExpr()
	if !p.isSpecial(')') {
		p.fail(msgParenExpected)
	}
	s := e.span()
	s.StartPos, s.EndPos = start, p.tok.end
	s.Parens++
	p.next()
	return e
}

func (p *parser) parseBlock() *Block {
	b := &Block{}
	b.StartPos = p.tok.start
	p.next()
	p.parseBlockArgs(b)
	b.Body = p.parseSequence(']', nil)
	if !p.isSpecial(']') {
		p.fail(msgBracketExpected)
	}
	b.EndPos = p.tok.end
	p.next()
	return b
}

// parseBlockArgs parses :a :b | (the bar may be glued to the temporaries'
// bar as ||, or left out before ]).
func (p *parser) parseBlockArgs(b *Block) {
	if !p.isSpecial(':') {
		return
	}
	for p.isSpecial(':') {
		p.next()
		b.Args = append(b.Args, p.parseArgName())
	}
	switch {
	case p.isBar():
		p.stepBar()
	case !p.isSpecial(']'):
		p.fail(msgBlockBarExpected)
	}
}

func (p *parser) parseDynamicArray() *DynamicArray {
	a := &DynamicArray{}
	a.StartPos = p.tok.start
	p.next()
	p.parseStatements('}', &a.Elements)
	if !p.isSpecial('}') {
		p.fail(msgBraceExpected)
	}
	a.EndPos = p.tok.end
	p.next()
	return a
}

// literalName turns true, false and nil into literals; nil for other names.
func (p *parser) literalName() *Literal {
	var k LiteralKind
	switch p.text() {
	case "true":
		k = LitTrue
	case "false":
		k = LitFalse
	case "nil":
		k = LitNil
	default:
		return nil
	}
	l := p.tokenLiteral(k, p.text())
	p.next()
	return l
}

func (p *parser) tokenLiteral(k LiteralKind, value string) *Literal {
	return &Literal{Span: Span{StartPos: p.tok.start, EndPos: p.tok.end}, Kind: k, Value: value}
}

// literal consumes a number, string, character or symbol token.
func (p *parser) literal() *Literal {
	t := p.tok
	var l *Literal
	switch t.kind {
	case tNumber:
		l = p.tokenLiteral(LitNumber, p.text())
	case tString:
		l = p.tokenLiteral(LitString, unquote(p.src[t.start+1:t.end-1]))
	case tChar:
		l = p.tokenLiteral(LitCharacter, p.src[t.start+1:t.end])
	case tSymbol:
		l = p.tokenLiteral(LitSymbol, symbolValue(p.src[t.aux:t.end]))
	default: // tMultiKeyword: a symbol in literal arrays and pragmas
		l = p.tokenLiteral(LitSymbol, p.text())
	}
	p.next()
	return l
}

// symbolValue is the text of a symbol after its #s.
func symbolValue(s string) string {
	if s != "" && s[0] == '\'' {
		return unquote(s[1 : len(s)-1])
	}
	return s
}

// unquote undoes the doubling of quotes inside a string literal.
func unquote(s string) string {
	if !strings.Contains(s, "''") {
		return s
	}
	return strings.ReplaceAll(s, "''", "'")
}

// parseLiteralArray parses #( … ) or, nested inside one, ( … ).
func (p *parser) parseLiteralArray() *Literal {
	p.enter()
	defer p.leave()
	a := &Literal{Kind: LitArray}
	a.StartPos = p.tok.start
	p.next()
	for p.tok.kind != tEOF && !p.isSpecial(')') {
		a.Elements = p.appendArrayElement(a.Elements)
	}
	if !p.isSpecial(')') {
		p.fail(msgParenExpected)
	}
	a.EndPos = p.tok.end
	a.Value = p.src[a.StartPos:a.EndPos]
	p.next()
	return a
}

// appendArrayElement parses one element of a literal array. As in
// RBParser, bare words, keywords, binary runs and stray special characters
// are symbols.
func (p *parser) appendArrayElement(list []*Literal) []*Literal {
	switch p.tok.kind {
	case tNumber, tString, tChar, tSymbol, tMultiKeyword:
		return append(list, p.literal())
	case tLitArray:
		return append(list, p.parseLiteralArray())
	case tByteArray:
		return append(list, p.parseByteArray())
	case tIdent:
		if l := p.literalName(); l != nil {
			return append(list, l)
		}
		if strings.HasPrefix(p.src[p.tok.end:], ":=") {
			return p.appendSplitAssign(list, p.tok.start, p.tok.end+1)
		}
	case tAssign:
		return p.appendSplitAssign(list, p.tok.start, p.tok.start+1)
	case tSpecial:
		if p.isSpecial('(') {
			return append(list, p.parseLiteralArray())
		}
	case tKeyword, tBinary:
	default:
		p.fail(msgLiteralExpected)
	}
	l := p.tokenLiteral(LitSymbol, p.text())
	p.next()
	return append(list, l)
}

// appendSplitAssign reads foo:= or := inside a literal array as the symbols
// #foo: (or #':') and #=, like RBParser.
func (p *parser) appendSplitAssign(list []*Literal, start, colonEnd int) []*Literal {
	first := &Literal{Span: Span{StartPos: start, EndPos: colonEnd}, Kind: LitSymbol, Value: p.src[start:colonEnd]}
	eq := &Literal{Span: Span{StartPos: colonEnd, EndPos: colonEnd + 1}, Kind: LitSymbol, Value: "="}
	p.sc.pos = colonEnd + 1
	p.next()
	return append(list, first, eq)
}

// parseByteArray parses #[ … ] of integers 0-255.
func (p *parser) parseByteArray() *Literal {
	a := &Literal{Kind: LitByteArray}
	a.StartPos = p.tok.start
	p.next()
	for p.tok.kind != tEOF && !p.isSpecial(']') {
		if p.tok.kind != tNumber || !isByte(p.text()) {
			p.fail(msgByteExpected)
		}
		a.Elements = append(a.Elements, p.literal())
	}
	if !p.isSpecial(']') {
		p.fail(msgBracketExpected)
	}
	a.EndPos = p.tok.end
	a.Value = p.src[a.StartPos:a.EndPos]
	p.next()
	return a
}
