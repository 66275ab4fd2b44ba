package selector

import "fmt"

// This file holds the label selector grammar (docs/api-semantics.md,
// "Label selectors"):
//
//	selector    = [ requirement { "," requirement } ]
//	requirement = [ "!" ] KEY
//	            | KEY ( "=" | "==" | "!=" | ">" | "<" ) [ VALUE ]
//	            | KEY ( "in" | "notin" ) "(" [ VALUE ] { "," [ VALUE ] } ")"
//
// Whitespace (space, tab, CR, LF) separates tokens and is otherwise
// ignored. A KEY or VALUE is a run of characters other than whitespace and
// the symbols = ! ( ) , < >; the words "in" and "notin" are operators after
// a key and plain words elsewhere. A missing VALUE is the empty string.

// tokenKind is the kind of one lexical token of a label selector.
type tokenKind int

const (
	tokEnd        tokenKind = iota // end of input
	tokWord                        // a key or value (or the words in, notin)
	tokNot                         // !
	tokEquals                      // =
	tokDoubleEq                    // ==
	tokNotEquals                   // !=
	tokGreater                     // >
	tokLess                        // <
	tokOpenParen                   // (
	tokCloseParen                  // )
	tokComma                       // ,
)

// token is one lexical token and the byte offset where it starts.
type token struct {
	kind tokenKind
	text string
	pos  int
}

// describe names a token for an error message.
func (t token) describe() string {
	if t.kind == tokEnd {
		return "end of string"
	}
	return fmt.Sprintf("%q", t.text)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSymbol(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '<', '>':
		return true
	}
	return false
}

// lexLabels splits s into tokens, ending with one tokEnd. Every byte is
// whitespace, a symbol or part of a word, so lexing cannot fail.
func lexLabels(s string) []token {
	var toks []token
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return append(toks, token{kind: tokEnd, pos: i})
		}
		start := i
		c := s[i]
		if !isSymbol(c) {
			for i < len(s) && !isSpace(s[i]) && !isSymbol(s[i]) {
				i++
			}
			toks = append(toks, token{kind: tokWord, text: s[start:i], pos: start})
			continue
		}
		kind := tokEnd
		i++
		switch c {
		case '!':
			kind = tokNot
			if i < len(s) && s[i] == '=' {
				kind = tokNotEquals
				i++
			}
		case '=':
			kind = tokEquals
			if i < len(s) && s[i] == '=' {
				kind = tokDoubleEq
				i++
			}
		case '>':
			kind = tokGreater
		case '<':
			kind = tokLess
		case '(':
			kind = tokOpenParen
		case ')':
			kind = tokCloseParen
		case ',':
			kind = tokComma
		}
		toks = append(toks, token{kind: kind, text: s[start:i], pos: start})
	}
}

// labelParser holds the state of one ParseLabels call.
type labelParser struct {
	input string
	toks  []token
	next  int
}

func (p *labelParser) peek() token { return p.toks[p.next] }

func (p *labelParser) take() token {
	t := p.toks[p.next]
	if t.kind != tokEnd {
		p.next++
	}
	return t
}

func (p *labelParser) errorf(t token, format string, args ...any) *ParseError {
	return labelError(p.input, t.pos, format, args...)
}

// ParseLabels parses a label selector such as "app=web,tier!=db" or
// "env in (prod,qa),!canary". The empty string (or only whitespace) is
// Everything. The result's requirements are sorted by key.
//
// A selector that breaks the grammar, or names an invalid key or value,
// yields a *ParseError saying where and why.
func ParseLabels(s string) (Labels, error) {
	p := &labelParser{input: s, toks: lexLabels(s)}
	var reqs []Requirement
	if p.peek().kind == tokEnd {
		return Labels{}, nil
	}
	for {
		r, err := p.requirement()
		if err != nil {
			return Labels{}, err
		}
		reqs = append(reqs, r)
		switch t := p.take(); t.kind {
		case tokEnd:
			sortRequirements(reqs)
			return Labels{reqs: reqs}, nil
		case tokComma:
			if p.peek().kind == tokEnd {
				return Labels{}, p.errorf(p.peek(), "expected a requirement after ','")
			}
		default:
			return Labels{}, p.errorf(t, "found %s, expected ',' or end of string", t.describe())
		}
	}
}

// requirement parses one requirement.
func (p *labelParser) requirement() (Requirement, error) {
	t := p.take()
	negated := t.kind == tokNot
	if negated {
		t = p.take()
	}
	if t.kind != tokWord {
		return Requirement{}, p.errorf(t, "found %s, expected a label key", t.describe())
	}
	key := t.text
	if msg := checkLabelKey(key); msg != "" {
		return Requirement{}, p.errorf(t, "label key %q: %s", key, msg)
	}
	if next := p.peek(); next.kind == tokEnd || next.kind == tokComma {
		if negated {
			return Requirement{key: key, op: DoesNotExist}, nil
		}
		return Requirement{key: key, op: Exists}, nil
	}
	if negated {
		next := p.peek()
		return Requirement{}, p.errorf(next, "found %s after \"!%s\"; a negated key takes no operator", next.describe(), key)
	}

	opTok := p.take()
	var op Operator
	switch opTok.kind {
	case tokEquals:
		op = Equals
	case tokDoubleEq:
		op = DoubleEquals
	case tokNotEquals:
		op = NotEquals
	case tokGreater:
		op = GreaterThan
	case tokLess:
		op = LessThan
	case tokWord:
		switch opTok.text {
		case "in":
			op = In
		case "notin":
			op = NotIn
		}
	}
	if op == "" {
		return Requirement{}, p.errorf(opTok, "found %s after key %q, expected one of =, ==, !=, in, notin, >, <, ',' or end of string", opTok.describe(), key)
	}
	if op == In || op == NotIn {
		values, err := p.valueSet()
		if err != nil {
			return Requirement{}, err
		}
		return newRequirement(key, op, values), nil
	}
	value, err := p.exactValue(opTok, op)
	if err != nil {
		return Requirement{}, err
	}
	return Requirement{key: key, op: op, values: []string{value}}, nil
}

// exactValue parses the single, possibly empty, value after =, ==, !=, > or <.
func (p *labelParser) exactValue(opTok token, op Operator) (string, error) {
	t := p.peek()
	switch t.kind {
	case tokEnd, tokComma:
		t = token{pos: opTok.pos + len(opTok.text)} // the empty value
	case tokWord:
		p.take()
	default:
		return "", p.errorf(t, "found %s after %q, expected a value", t.describe(), opTok.text)
	}
	if msg := checkLabelValue(t.text); msg != "" {
		return "", p.errorf(t, "label value %q: %s", t.text, msg)
	}
	if msg := checkRequirement(op, []string{t.text}); msg != "" {
		return "", p.errorf(t, "%s", msg)
	}
	return t.text, nil
}

// valueSet parses "(" [VALUE] { "," [VALUE] } ")"; a missing value is "".
func (p *labelParser) valueSet() ([]string, error) {
	if t := p.take(); t.kind != tokOpenParen {
		return nil, p.errorf(t, "found %s, expected '(' to open the set of values", t.describe())
	}
	var values []string
	for {
		value := ""
		t := p.peek()
		if t.kind == tokWord {
			p.take()
			if msg := checkLabelValue(t.text); msg != "" {
				return nil, p.errorf(t, "label value %q: %s", t.text, msg)
			}
			value = t.text
		}
		values = append(values, value)
		switch t := p.take(); t.kind {
		case tokComma:
		case tokCloseParen:
			return values, nil
		default:
			if value == "" {
				return nil, p.errorf(t, "found %s in a set of values, expected a value, ',' or ')'", t.describe())
			}
			return nil, p.errorf(t, "found %s in a set of values, expected ',' or ')'", t.describe())
		}
	}
}
