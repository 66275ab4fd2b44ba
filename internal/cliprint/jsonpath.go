package cliprint

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// JSONPath is a parsed path in the subset of kubectl's JSONPath that
// custom resources use in additionalPrinterColumns:
//
//	.spec.replicas                       members
//	.spec.containers[0].image            array index (negative counts from the end)
//	.spec.containers[*].image            every element
//	.metadata.labels['app.kubernetes.io/name']   a quoted member name
//	.status.conditions[?(@.type=="Ready")].status  a filter: == or != against
//	                                     a string, number, true, false or null;
//	                                     [?(@.x)] keeps elements that have x
//
// Surrounding braces ("{.spec.replicas}") and a leading "$" (the root) are
// accepted. Anything else — a
// recursive descent (".."), a slice, a function — is a *PathError, so a
// column with a path this printer cannot evaluate is reported instead of
// printing something wrong.
type JSONPath struct {
	src   string
	steps []step
}

// PathError reports a path that could not be parsed: the path, the byte
// offset where parsing stopped and why.
type PathError struct {
	Path   string
	Offset int
	Msg    string
}

// Error returns `jsonpath "<path>": <msg> at offset <n>`.
func (e *PathError) Error() string {
	return fmt.Sprintf("jsonpath %q: %s at offset %d", e.Path, e.Msg, e.Offset)
}

// stepKind is what one step of a path selects.
type stepKind int

const (
	stepMember stepKind = iota // a member of an object
	stepIndex                  // one element of an array
	stepAll                    // every element of an array or member of an object
	stepFilter                 // the elements of an array that pass a test
)

// step is one step of a path.
type step struct {
	kind  stepKind
	name  string // stepMember
	index int    // stepIndex
	// stepFilter: the member path under "@", the operator ("" for an
	// existence test, "==", "!=") and the literal compared with.
	filterPath []string
	op         string
	literal    any
}

// maxPathLen bounds a path; printer columns are short.
const maxPathLen = 1024

// ParseJSONPath parses a path of the subset described on JSONPath.
func ParseJSONPath(path string) (*JSONPath, error) {
	p := &pathParser{src: path}
	if len(path) > maxPathLen {
		return nil, p.fail(0, fmt.Sprintf("longer than %d bytes", maxPathLen))
	}
	s := strings.TrimSpace(path)
	p.off = len(path) - len(strings.TrimLeft(path, " \t"))
	if strings.HasPrefix(s, "{") {
		if !strings.HasSuffix(s, "}") {
			return nil, p.fail(len(path), "missing closing brace")
		}
		s = s[1 : len(s)-1]
		p.off++
	}
	p.s = s
	steps, err := p.parse()
	if err != nil {
		return nil, err
	}
	return &JSONPath{src: path, steps: steps}, nil
}

// String returns the path as it was parsed.
func (jp *JSONPath) String() string { return jp.src }

// pathParser holds the state of one parse.
type pathParser struct {
	src string // the whole input, for errors
	s   string // what is left to parse
	off int    // offset of s[0] in src
}

func (p *pathParser) fail(off int, msg string) error {
	return &PathError{Path: p.src, Offset: off, Msg: msg}
}

// advance consumes n bytes.
func (p *pathParser) advance(n int) {
	p.s = p.s[n:]
	p.off += n
}

func (p *pathParser) parse() ([]step, error) {
	var steps []step
	if strings.HasPrefix(p.s, "$") {
		// "$" is the root, which every path starts from anyway.
		p.advance(1)
		if p.s == "" {
			return nil, nil
		}
	}
	if p.s != "" && p.s != "." && p.s[0] != '.' && p.s[0] != '[' {
		// "spec.replicas" without the leading dot reads as ".spec.replicas".
		p.s = "." + p.s
		p.off--
	}
	if p.s == "." {
		return nil, nil // the whole object
	}
	for p.s != "" {
		switch p.s[0] {
		case '.':
			p.advance(1)
			if p.s == "" {
				return nil, p.fail(p.off, "path ends with a dot")
			}
			if p.s[0] == '.' {
				return nil, p.fail(p.off-1, "recursive descent (..) is not supported")
			}
			if p.s[0] == '*' {
				p.advance(1)
				steps = append(steps, step{kind: stepAll})
				continue
			}
			n := strings.IndexAny(p.s, ".[")
			if n < 0 {
				n = len(p.s)
			}
			name := p.s[:n]
			if name == "" {
				return nil, p.fail(p.off, "empty member name")
			}
			if strings.ContainsAny(name, "]{}()@?'\" ") {
				return nil, p.fail(p.off, fmt.Sprintf("unexpected character in member name %q", name))
			}
			p.advance(n)
			steps = append(steps, step{kind: stepMember, name: name})
		case '[':
			st, err := p.bracket()
			if err != nil {
				return nil, err
			}
			steps = append(steps, st)
		default:
			return nil, p.fail(p.off, fmt.Sprintf("unexpected %q", p.s[0]))
		}
	}
	return steps, nil
}

// bracket parses one [...] step.
func (p *pathParser) bracket() (step, error) {
	start := p.off
	p.advance(1)
	switch {
	case strings.HasPrefix(p.s, "*]"):
		p.advance(2)
		return step{kind: stepAll}, nil
	case strings.HasPrefix(p.s, "'"), strings.HasPrefix(p.s, `"`):
		name, n, err := p.quoted(p.s)
		if err != nil {
			return step{}, err
		}
		p.advance(n)
		if !strings.HasPrefix(p.s, "]") {
			return step{}, p.fail(p.off, "missing ] after quoted name")
		}
		p.advance(1)
		return step{kind: stepMember, name: name}, nil
	case strings.HasPrefix(p.s, "?("):
		return p.filter(start)
	}
	end := strings.IndexByte(p.s, ']')
	if end < 0 {
		return step{}, p.fail(start, "missing ]")
	}
	inner := p.s[:end]
	if strings.Contains(inner, ":") || strings.Contains(inner, ",") {
		return step{}, p.fail(p.off, "slices and unions are not supported")
	}
	i, err := strconv.Atoi(inner)
	if err != nil {
		return step{}, p.fail(p.off, fmt.Sprintf("array index %q is not an integer", inner))
	}
	p.advance(end + 1)
	return step{kind: stepIndex, index: i}, nil
}

// filter parses [?(@.a.b == literal)] or [?(@.a)], p.s starting at "?(".
func (p *pathParser) filter(start int) (step, error) {
	p.advance(2)
	p.skipSpace()
	if !strings.HasPrefix(p.s, "@") {
		return step{}, p.fail(p.off, "a filter must start with @")
	}
	p.advance(1)
	var members []string
	for strings.HasPrefix(p.s, ".") || strings.HasPrefix(p.s, "[") {
		if p.s[0] == '[' {
			name, n, err := p.quoted(p.s[1:])
			if err != nil {
				return step{}, err
			}
			p.advance(1 + n)
			if !strings.HasPrefix(p.s, "]") {
				return step{}, p.fail(p.off, "missing ] after quoted name")
			}
			p.advance(1)
			members = append(members, name)
			continue
		}
		p.advance(1)
		n := strings.IndexAny(p.s, ".[ =!)<>")
		if n <= 0 {
			return step{}, p.fail(p.off, "empty member name in filter")
		}
		members = append(members, p.s[:n])
		p.advance(n)
	}
	if len(members) == 0 {
		return step{}, p.fail(p.off, "a filter needs a member after @")
	}
	p.skipSpace()
	st := step{kind: stepFilter, filterPath: members}
	switch {
	case strings.HasPrefix(p.s, "=="), strings.HasPrefix(p.s, "!="):
		st.op = p.s[:2]
		p.advance(2)
		p.skipSpace()
		lit, err := p.literal()
		if err != nil {
			return step{}, err
		}
		st.literal = lit
		p.skipSpace()
	case strings.HasPrefix(p.s, ")"):
	default:
		return step{}, p.fail(p.off, "only == and != are supported in filters")
	}
	if !strings.HasPrefix(p.s, ")]") {
		return step{}, p.fail(p.off, fmt.Sprintf("filter starting at offset %d is not closed with )]", start))
	}
	p.advance(2)
	return st, nil
}

// literal parses the right side of a filter comparison.
func (p *pathParser) literal() (any, error) {
	if strings.HasPrefix(p.s, "'") || strings.HasPrefix(p.s, `"`) {
		s, n, err := p.quoted(p.s)
		if err != nil {
			return nil, err
		}
		p.advance(n)
		return s, nil
	}
	n := strings.IndexAny(p.s, " )]")
	if n < 0 {
		n = len(p.s)
	}
	if n == 0 {
		return nil, p.fail(p.off, "missing value after the operator")
	}
	word := p.s[:n]
	switch word {
	case "true":
		p.advance(n)
		return true, nil
	case "false":
		p.advance(n)
		return false, nil
	case "null":
		p.advance(n)
		return nil, nil
	}
	if _, err := strconv.ParseFloat(word, 64); err != nil {
		return nil, p.fail(p.off, fmt.Sprintf("value %q is neither quoted nor a number", word))
	}
	p.advance(n)
	return json.Number(word), nil
}

// quoted reads a single- or double-quoted string at the start of s (a
// backslash escapes the next character) and returns it and the bytes it
// used.
func (p *pathParser) quoted(s string) (string, int, error) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", 0, p.fail(p.off, "expected a quoted name")
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case q:
			return b.String(), i + 1, nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, p.fail(p.off, "unterminated quoted string")
}

func (p *pathParser) skipSpace() {
	n := len(p.s) - len(strings.TrimLeft(p.s, " "))
	p.advance(n)
}

// errNotFound is returned by Find when the path leads nowhere.
var errNotFound = errors.New("not found")

// Find evaluates the path on a decoded JSON document (maps, slices,
// strings, json.Number, bools, nil) and returns every value it reaches, in
// document order (object members in sorted key order). A path that reaches
// nothing returns no values and no error.
func (jp *JSONPath) Find(doc any) []any {
	cur := []any{doc}
	for _, st := range jp.steps {
		var next []any
		for _, v := range cur {
			next = st.apply(v, next)
		}
		cur = next
		if len(cur) == 0 {
			return nil
		}
	}
	return cur
}

// apply appends what one step selects from v.
func (st step) apply(v any, out []any) []any {
	switch st.kind {
	case stepMember:
		if m, ok := v.(map[string]any); ok {
			if x, ok := m[st.name]; ok {
				out = append(out, x)
			}
		}
	case stepIndex:
		if a, ok := v.([]any); ok {
			i := st.index
			if i < 0 {
				i += len(a)
			}
			if i >= 0 && i < len(a) {
				out = append(out, a[i])
			}
		}
	case stepAll:
		switch x := v.(type) {
		case []any:
			out = append(out, x...)
		case map[string]any:
			for _, k := range sortedKeys(x) {
				out = append(out, x[k])
			}
		}
	case stepFilter:
		if a, ok := v.([]any); ok {
			for _, el := range a {
				if st.keep(el) {
					out = append(out, el)
				}
			}
		}
	}
	return out
}

// keep reports whether el passes a filter step.
func (st step) keep(el any) bool {
	got, err := member(el, st.filterPath)
	if st.op == "" {
		return err == nil
	}
	equal := err == nil && sameValue(got, st.literal)
	if st.op == "==" {
		return equal
	}
	return !equal
}

// member walks object members.
func member(v any, path []string) (any, error) {
	for _, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errNotFound
		}
		if v, ok = m[name]; !ok {
			return nil, errNotFound
		}
	}
	return v, nil
}

// sameValue compares a document value with a filter literal; numbers
// compare by value.
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return false
		}
		if g == w {
			return true
		}
		gf, err1 := g.Float64()
		wf, err2 := w.Float64()
		return err1 == nil && err2 == nil && gf == wf
	case nil:
		return got == nil
	}
	return got == want
}
