package smalltalk

// Info summarises a method (or any node). Every list is in order of first
// occurrence in the source, without duplicates.
type Info struct {
	Selector string   // empty unless the node is a Method
	Args     []string // the method's argument names
	// Temps are method temporaries, block arguments and block temporaries
	// (and the error: name of a <primitive:> pragma).
	Temps []string
	// Referenced are the variables used in the body, read or written,
	// pseudo-variables (self, super, thisContext) included.
	Referenced []string
	Assigned   []string // the variables on the left of :=
	// Sends are the selectors sent, cascade parts included. Symbols inside
	// literal arrays are not sends.
	Sends []string
	// Symbols are the literal symbols, including those inside literal
	// arrays and pragma arguments.
	Symbols []string
	// Warnings are the parser's warnings (a Method's only), e.g. the
	// unreachable statements a check may refuse to let a candidate add.
	Warnings []Warning
}

// Info summarises the method; see Analyze.
func (m *Method) Info() *Info { return Analyze(m) }

// Unreachable lists the warnings about statements that follow a return.
func (i *Info) Unreachable() []Warning {
	var out []Warning
	for _, w := range i.Warnings {
		if w.Kind == WarnUnreachable {
			out = append(out, w)
		}
	}
	return out
}

// Analyze summarises what n declares, references, assigns, sends and
// mentions as symbols.
func Analyze(n Node) *Info {
	var c collector
	c.node(n)
	info := &Info{
		Args: c.args.list, Temps: c.temps.list, Referenced: c.refs.list,
		Assigned: c.assigned.list, Sends: c.sends.list, Symbols: c.symbols.list,
		Selector: c.selector,
	}
	if m, ok := n.(*Method); ok {
		info.Warnings = m.Warnings
	}
	return info
}

// nameSet is an ordered set of names. Most methods name a handful of
// things, so small sets are searched in order and only large ones get a map:
// the analysis runs over every method of an image when it is indexed.
type nameSet struct {
	list []string
	seen map[string]bool
}

// smallNameSet is the size up to which a linear search beats a map.
const smallNameSet = 16

func (s *nameSet) add(name string) {
	if s.seen == nil {
		for _, n := range s.list {
			if n == name {
				return
			}
		}
		s.list = append(s.list, name)
		if len(s.list) > smallNameSet {
			s.seen = make(map[string]bool, 2*len(s.list))
			for _, n := range s.list {
				s.seen[n] = true
			}
		}
		return
	}
	if s.seen[name] {
		return
	}
	s.seen[name] = true
	s.list = append(s.list, name)
}

func (s *nameSet) addVars(vs []*Variable) {
	for _, v := range vs {
		s.add(v.Name)
	}
}

type collector struct {
	selector                                    string
	args, temps, refs, assigned, sends, symbols nameSet
}

// node visits n in source order. Declarations are handled by their owners
// so that they are not counted as references.
func (c *collector) node(n Node) {
	switch n := n.(type) {
	case *Method:
		c.selector = n.Selector
		c.args.addVars(n.Args)
		for _, p := range n.Pragmas {
			c.node(p)
		}
		c.node(n.Body)
	case *Pragma:
		for _, a := range n.Args {
			c.literal(a)
		}
	case *Sequence:
		c.temps.addVars(n.Temps)
		c.nodes(n.Statements)
	case *Block:
		c.temps.addVars(n.Args)
		c.node(n.Body)
	case *Variable:
		c.refs.add(n.Name)
	case *Assignment:
		c.refs.add(n.Variable.Name)
		c.assigned.add(n.Variable.Name)
		c.node(n.Value)
	case *Return:
		c.node(n.Value)
	case *Message:
		if n.Receiver != nil {
			c.node(n.Receiver)
		}
		c.sends.add(n.Selector)
		c.nodes(n.Args)
	case *Cascade:
		c.node(n.Receiver)
		for _, m := range n.Messages {
			c.node(m)
		}
	case *DynamicArray:
		c.nodes(n.Elements)
	case *Literal:
		c.literal(n)
	}
}

func (c *collector) nodes(ns []Node) {
	for _, n := range ns {
		c.node(n)
	}
}

func (c *collector) literal(l *Literal) {
	switch l.Kind {
	case LitSymbol:
		c.symbols.add(l.Value)
	case LitName:
		c.temps.add(l.Value)
	}
	for _, e := range l.Elements {
		c.literal(e)
	}
}
