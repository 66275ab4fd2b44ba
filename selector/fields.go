package selector

import (
	"cmp"
	"slices"
	"strings"
)

// FieldRequirement is one term of a field selector: Field compared with
// Value by Operator, which is Equals or NotEquals ("==" parses as Equals).
type FieldRequirement struct {
	Field    string
	Operator Operator
	Value    string
}

// Matches reports whether the field, read through get, satisfies the term.
// An absent field reads as "", as on the API server: "f!=x" matches an
// object without f, and so does "f=".
func (r FieldRequirement) Matches(get func(field string) (string, bool)) bool {
	v, _ := get(r.Field)
	if r.Operator == NotEquals {
		return v != r.Value
	}
	return v == r.Value
}

// String returns the term in selector syntax, "field=value" or
// "field!=value", with '\', ',' and '=' in the value escaped.
func (r FieldRequirement) String() string {
	var b strings.Builder
	r.appendTo(&b)
	return b.String()
}

func (r FieldRequirement) appendTo(b *strings.Builder) {
	b.WriteString(r.Field)
	if r.Operator == NotEquals {
		b.WriteString("!=")
	} else {
		b.WriteByte('=')
	}
	b.WriteString(EscapeFieldValue(r.Value))
}

// Fields is a parsed field selector: terms joined by AND. The zero value
// selects everything. A Fields is immutable and safe for concurrent use.
//
// Which fields exist is not the selector's business: the API server (and
// the fake server) rejects unknown field names with 400 BadRequest.
type Fields struct {
	terms []FieldRequirement
}

// ParseFields parses a field selector such as
// "metadata.name=web,status.phase!=Running". Terms are separated by commas
// and are "field=value", "field==value" or "field!=value". In a value,
// '\', ',' and '=' are written "\\", "\," and "\="; no other escape is
// allowed. Empty terms are skipped, so "" selects everything. Whitespace is
// part of the field or value, as on the API server.
//
// Errors are *ParseError values naming the byte offset and the problem.
func ParseFields(s string) (Fields, error) {
	var terms []FieldRequirement
	start := 0
	escaped := false
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch c := s[i]; {
			case escaped:
				escaped = false
				continue
			case c == '\\':
				escaped = true
				continue
			case c != ',':
				continue
			}
		}
		if i > start {
			t, err := parseFieldTerm(s, start, i)
			if err != nil {
				return Fields{}, err
			}
			terms = append(terms, t)
		}
		start = i + 1
	}
	sortFieldTerms(terms)
	return Fields{terms: terms}, nil
}

// parseFieldTerm parses the term s[start:end].
func parseFieldTerm(s string, start, end int) (FieldRequirement, error) {
	term := s[start:end]
	// The field is everything before the first operator: no escapes there.
	opAt, op, opLen := -1, Equals, 0
	for i := 0; i < len(term); i++ {
		if strings.HasPrefix(term[i:], "!=") {
			opAt, op, opLen = i, NotEquals, 2
		} else if strings.HasPrefix(term[i:], "==") {
			opAt, opLen = i, 2
		} else if term[i] == '=' {
			opAt, opLen = i, 1
		}
		if opAt >= 0 {
			break
		}
	}
	if opAt < 0 {
		return FieldRequirement{}, fieldError(s, start, "term %q has no operator; expected field=value, field==value or field!=value", term)
	}
	field := term[:opAt]
	if msg := checkFieldName(field); msg != "" {
		return FieldRequirement{}, fieldError(s, start, "%s", msg)
	}
	valueAt := start + opAt + opLen
	value, pos, msg := unescapeFieldValue(term[opAt+opLen:])
	if msg != "" {
		return FieldRequirement{}, fieldError(s, valueAt+pos, "value of %q: %s", field, msg)
	}
	return FieldRequirement{Field: field, Operator: op, Value: value}, nil
}

// checkFieldName returns what is wrong with a field name, or "". A field
// name is written without escapes, so it may not hold '\', ',' or '=' and
// may not end with '!' (which would read as "!=").
func checkFieldName(field string) string {
	switch {
	case field == "":
		return "a term needs a field name before its operator"
	case strings.ContainsAny(field, `\,=`):
		return "field name " + quote(field) + " may not contain '\\', ',' or '='"
	case strings.HasSuffix(field, "!"):
		return "field name " + quote(field) + " may not end with '!'"
	}
	return ""
}

func quote(s string) string { return `"` + s + `"` }

// unescapeFieldValue undoes EscapeFieldValue. On failure it returns the
// offset within v of the problem and a message.
func unescapeFieldValue(v string) (string, int, string) {
	if !strings.ContainsAny(v, `\,=`) {
		return v, 0, ""
	}
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			if i+1 == len(v) {
				return "", i, `a value may not end with a lone '\'; write "\\" for a backslash`
			}
			switch n := v[i+1]; n {
			case '\\', ',', '=':
				b.WriteByte(n)
				i++
			default:
				return "", i, "invalid escape sequence " + quote(v[i:i+2]) + `; only "\\", "\," and "\=" are allowed`
			}
		case '=':
			return "", i, `'=' in a value must be escaped as "\="`
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), 0, ""
}

// EscapeFieldValue escapes '\', ',' and '=' with a backslash so that value
// can be written into a field selector.
func EscapeFieldValue(value string) string {
	if !strings.ContainsAny(value, `\,=`) {
		return value
	}
	var b strings.Builder
	b.Grow(len(value) + 4)
	for i := 0; i < len(value); i++ {
		switch c := value[i]; c {
		case '\\', ',', '=':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FieldsFromSet returns the selector "f1=v1,f2=v2,..." requiring every
// field of set to equal its value. It fails if a field name is empty,
// contains '\', ',' or '=', or ends with '!'.
func FieldsFromSet(set map[string]string) (Fields, error) {
	terms := make([]FieldRequirement, 0, len(set))
	for f, v := range set {
		if msg := checkFieldName(f); msg != "" {
			return Fields{}, fieldError(f, 0, "%s", msg)
		}
		terms = append(terms, FieldRequirement{Field: f, Operator: Equals, Value: v})
	}
	sortFieldTerms(terms)
	return Fields{terms: terms}, nil
}

// sortFieldTerms orders terms by field, then operator, then value, so that
// equal selectors print the same.
func sortFieldTerms(terms []FieldRequirement) {
	slices.SortStableFunc(terms, func(a, b FieldRequirement) int {
		return cmp.Or(
			strings.Compare(a.Field, b.Field),
			strings.Compare(string(a.Operator), string(b.Operator)),
			strings.Compare(a.Value, b.Value))
	})
}

// Matches reports whether an object satisfies every term, reading fields
// through get. An absent field reads as "".
func (f Fields) Matches(get func(field string) (string, bool)) bool {
	for _, t := range f.terms {
		if !t.Matches(get) {
			return false
		}
	}
	return true
}

// Empty reports whether the selector has no terms and so matches everything.
func (f Fields) Empty() bool { return len(f.terms) == 0 }

// Requirements returns a copy of the terms, sorted by field.
func (f Fields) Requirements() []FieldRequirement { return slices.Clone(f.terms) }

// RequiresExactMatch reports whether the selector contains the term
// "field=value", and returns value. A server uses it to turn
// "metadata.name=x" into a lookup of one object.
func (f Fields) RequiresExactMatch(field string) (value string, ok bool) {
	for _, t := range f.terms {
		if t.Field == field && t.Operator == Equals {
			return t.Value, true
		}
	}
	return "", false
}

// String returns the selector's canonical form: terms sorted, joined by
// commas, "==" written "=", values escaped. ParseFields(f.String()) is
// equivalent to f.
func (f Fields) String() string {
	var b strings.Builder
	for i, t := range f.terms {
		if i > 0 {
			b.WriteByte(',')
		}
		t.appendTo(&b)
	}
	return b.String()
}
