package selector

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Operator is how a requirement compares a label or field with its values.
// The string values are the ones the Kubernetes API machinery uses.
type Operator string

// The operators of label selectors. Field selectors use only Equals and
// NotEquals.
const (
	// Exists: the label is present ("KEY").
	Exists Operator = "exists"
	// DoesNotExist: the label is absent ("!KEY").
	DoesNotExist Operator = "!"
	// Equals: present with this value ("KEY=VALUE").
	Equals Operator = "="
	// DoubleEquals is Equals written "KEY==VALUE"; it matches the same.
	DoubleEquals Operator = "=="
	// NotEquals: absent, or present with another value ("KEY!=VALUE").
	NotEquals Operator = "!="
	// In: present with one of the values ("KEY in (V1,V2)").
	In Operator = "in"
	// NotIn: absent, or present with none of the values ("KEY notin (V1)").
	NotIn Operator = "notin"
	// GreaterThan: present and, read as a decimal integer, greater ("KEY>N").
	GreaterThan Operator = "gt"
	// LessThan: present and, read as a decimal integer, less ("KEY<N").
	LessThan Operator = "lt"
)

// Requirement is one condition of a label selector: a key, an operator and
// the values it compares with. It is immutable; build one with
// NewRequirement or get it from a parsed Labels.
type Requirement struct {
	key    string
	op     Operator
	values []string // sorted and unique for In and NotIn
}

// NewRequirement checks and builds a requirement, with the same rules the
// parser applies: key and values must be valid label keys and values;
// Exists and DoesNotExist take no values; Equals, DoubleEquals, NotEquals,
// GreaterThan and LessThan take exactly one (an integer for the last two);
// In and NotIn take one or more, which are sorted and de-duplicated.
func NewRequirement(key string, op Operator, values ...string) (Requirement, error) {
	if msg := checkLabelKey(key); msg != "" {
		return Requirement{}, fmt.Errorf("label key %q: %s", key, msg)
	}
	if msg := checkRequirement(op, values); msg != "" {
		return Requirement{}, fmt.Errorf("label selector requirement on %q: %s", key, msg)
	}
	return newRequirement(key, op, values), nil
}

// newRequirement builds a requirement whose key and values have been checked.
func newRequirement(key string, op Operator, values []string) Requirement {
	vals := slices.Clone(values)
	if op == In || op == NotIn {
		slices.Sort(vals)
		vals = slices.Compact(vals)
	}
	return Requirement{key: key, op: op, values: vals}
}

// checkRequirement returns what is wrong with op and values, or "".
func checkRequirement(op Operator, values []string) string {
	switch op {
	case Exists, DoesNotExist:
		if len(values) != 0 {
			return fmt.Sprintf("operator %q takes no values, got %d", op, len(values))
		}
	case Equals, DoubleEquals, NotEquals:
		if len(values) != 1 {
			return fmt.Sprintf("operator %q takes exactly one value, got %d", op, len(values))
		}
	case In, NotIn:
		if len(values) == 0 {
			return fmt.Sprintf("operator %q needs at least one value", op)
		}
	case GreaterThan, LessThan:
		if len(values) != 1 {
			return fmt.Sprintf("operator %q takes exactly one value, got %d", op, len(values))
		}
		if _, err := strconv.ParseInt(values[0], 10, 64); err != nil {
			return fmt.Sprintf("operator %q needs a decimal integer, got %q", op, values[0])
		}
	default:
		return fmt.Sprintf("unknown operator %q", op)
	}
	for _, v := range values {
		if msg := checkLabelValue(v); msg != "" {
			return fmt.Sprintf("value %q: %s", v, msg)
		}
	}
	return ""
}

// Key returns the label key the requirement is about.
func (r Requirement) Key() string { return r.key }

// Operator returns the requirement's operator.
func (r Requirement) Operator() Operator { return r.op }

// Values returns a copy of the requirement's values: none for Exists and
// DoesNotExist, one for the comparison operators, and the sorted unique
// set for In and NotIn.
func (r Requirement) Values() []string { return slices.Clone(r.values) }

// Matches reports whether a set of labels satisfies the requirement.
// NotEquals and NotIn also match when the key is absent; every other
// operator except DoesNotExist needs the key. GreaterThan and LessThan
// match only a label whose value is a decimal integer.
func (r Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	switch r.op {
	case Exists:
		return ok
	case DoesNotExist:
		return !ok
	case Equals, DoubleEquals, In:
		return ok && slices.Contains(r.values, v)
	case NotEquals, NotIn:
		return !ok || !slices.Contains(r.values, v)
	case GreaterThan, LessThan:
		if !ok || len(r.values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.op == GreaterThan {
			return have > want
		}
		return have < want
	}
	return false
}

// String returns the requirement in selector syntax: "key", "!key",
// "key=v", "key==v", "key!=v", "key in (a,b)", "key notin (a)", "key>5",
// "key<5". Parsing the result gives the same requirement.
func (r Requirement) String() string {
	var b strings.Builder
	r.appendTo(&b)
	return b.String()
}

func (r Requirement) appendTo(b *strings.Builder) {
	if r.op == DoesNotExist {
		b.WriteByte('!')
	}
	b.WriteString(r.key)
	switch r.op {
	case Exists, DoesNotExist:
		return
	case In, NotIn:
		b.WriteByte(' ')
		b.WriteString(string(r.op))
		b.WriteString(" (")
		b.WriteString(strings.Join(r.values, ","))
		b.WriteByte(')')
		return
	case GreaterThan:
		b.WriteByte('>')
	case LessThan:
		b.WriteByte('<')
	default:
		b.WriteString(string(r.op))
	}
	if len(r.values) > 0 {
		b.WriteString(r.values[0])
	}
}

// Labels is a parsed label selector: requirements joined by AND, sorted by
// key. The zero value selects everything. A Labels is immutable and safe
// for concurrent use.
type Labels struct {
	reqs []Requirement
}

// Everything returns the label selector that matches every object, the one
// the empty string parses to.
func Everything() Labels { return Labels{} }

// NewLabels returns the selector that requires all of reqs. Requirements
// must come from NewRequirement or from another Labels.
func NewLabels(reqs ...Requirement) Labels {
	return Labels{}.Add(reqs...)
}

// LabelsFromSet returns the selector "k1=v1,k2=v2,..." that matches objects
// carrying every label of set. It fails if a key or value is not a valid
// label key or value.
func LabelsFromSet(set map[string]string) (Labels, error) {
	reqs := make([]Requirement, 0, len(set))
	var errs []error
	for k, v := range set {
		r, err := NewRequirement(k, Equals, v)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, r)
	}
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return Labels{}, errors.Join(errs...)
	}
	return NewLabels(reqs...), nil
}

// Add returns a new selector that also requires reqs; l is unchanged.
func (l Labels) Add(reqs ...Requirement) Labels {
	all := make([]Requirement, 0, len(l.reqs)+len(reqs))
	all = append(all, l.reqs...)
	all = append(all, reqs...)
	sortRequirements(all)
	return Labels{reqs: all}
}

// sortRequirements orders requirements by key, as the API server prints
// them; requirements on the same key keep their order.
func sortRequirements(reqs []Requirement) {
	slices.SortStableFunc(reqs, func(a, b Requirement) int { return cmp.Compare(a.key, b.key) })
}

// Matches reports whether labels satisfies every requirement. A nil map is
// an object without labels.
func (l Labels) Matches(labels map[string]string) bool {
	for _, r := range l.reqs {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// Empty reports whether the selector has no requirements and so matches
// everything.
func (l Labels) Empty() bool { return len(l.reqs) == 0 }

// Requirements returns a copy of the requirements, sorted by key.
func (l Labels) Requirements() []Requirement { return slices.Clone(l.reqs) }

// String returns the canonical form of the selector: requirements sorted by
// key and joined by commas, In and NotIn values sorted, no optional
// whitespace. The empty selector is "". ParseLabels(l.String()) is
// equivalent to l.
func (l Labels) String() string {
	var b strings.Builder
	for i, r := range l.reqs {
		if i > 0 {
			b.WriteByte(',')
		}
		r.appendTo(&b)
	}
	return b.String()
}
