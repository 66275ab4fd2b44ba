package request

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	celparser "github.com/google/cel-go/parser"

	"github.com/kubecache/kubecache/meta"
)

// Shard is a parsed shardSelector (the ShardedListAndWatch feature): one
// or more ranges of the 64-bit FNV-1a hash of one metadata field, joined
// by ||. An object is in the shard when the hash of its field falls in
// any range, start included, end excluded.
type Shard struct {
	// namespace says the hashed field is metadata.namespace, not
	// metadata.uid.
	namespace bool
	ranges    []shardRange
	// canonical is the selector as the server echoes it in a list's
	// metadata.shardInfo.selector.
	canonical string
}

// shardRange is [start, end) over the hash space; top means end is 2^64,
// which a uint64 cannot hold.
type shardRange struct {
	start, end uint64
	top        bool
}

// The two fields a shardSelector may hash.
const (
	shardFieldUID       = "object.metadata.uid"
	shardFieldNamespace = "object.metadata.namespace"
	// shardTop is the exclusive upper bound of the hash space, 2^64.
	shardTop = "0x10000000000000000"
)

// ParseShard parses a shardSelector as kube-apiserver does: a CEL
// expression that is a shardRange(field, 'start', 'end') call or calls
// joined by ||, parsed but never evaluated, with 16-digit lowercase hex
// bounds (or '0x10000000000000000' for 2^64). Its errors are the real
// server's messages, to be prefixed "invalid shard selector: ".
func ParseShard(expr string) (*Shard, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, errors.New("empty shard selector is not allowed; omit the parameter for unfiltered lists")
	}
	p, err := celparser.NewParser(celparser.Macros())
	if err != nil {
		return nil, fmt.Errorf("failed to create CEL parser: %w", err)
	}
	parsed, errs := p.Parse(common.NewTextSource(expr))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return nil, fmt.Errorf("CEL parse error: %s", errs.GetErrors()[0].Message)
	}
	var s Shard
	var fields []string
	if err := s.collect(parsed.Expr(), &fields); err != nil {
		return nil, err
	}
	for _, f := range fields[1:] {
		if f != fields[0] {
			return nil, fmt.Errorf("all shard ranges must use the same field, got %q and %q", fields[0], f)
		}
	}
	s.namespace = fields[0] == shardFieldNamespace
	parts := make([]string, len(s.ranges))
	for i, r := range s.ranges {
		parts[i] = fmt.Sprintf("shardRange(%s, '%s', '%s')", fields[0], hexBound(r.start, false), hexBound(r.end, r.top))
	}
	s.canonical = strings.Join(parts, " || ")
	return &s, nil
}

// collect walks e, which must be a shardRange call or an || of such
// expressions, appending each range and its field in order.
func (s *Shard) collect(e ast.Expr, fields *[]string) error {
	if e.Kind() != ast.CallKind {
		return fmt.Errorf("unexpected expression kind %v; expected shardRange() call or || operator", e.Kind())
	}
	call := e.AsCall()
	switch fn := call.FunctionName(); fn {
	case operators.LogicalOr:
		args := call.Args()
		if len(args) != 2 {
			return errors.New("|| operator requires exactly 2 arguments")
		}
		if err := s.collect(args[0], fields); err != nil {
			return err
		}
		return s.collect(args[1], fields)
	case "shardRange":
		return s.collectRange(call, fields)
	default:
		return fmt.Errorf("unsupported function %q; only shardRange() and || are allowed", fn)
	}
}

// collectRange reads one shardRange(field, 'start', 'end') call.
func (s *Shard) collectRange(call ast.CallExpr, fields *[]string) error {
	args := call.Args()
	if len(args) != 3 {
		return fmt.Errorf("shardRange() requires exactly 3 arguments, got %d", len(args))
	}
	field, err := selectPath(args[0])
	if err != nil {
		return fmt.Errorf("shardRange() first argument: %w", err)
	}
	if field != shardFieldUID && field != shardFieldNamespace {
		return fmt.Errorf("unsupported field path %q; supported: %s, %s", field, shardFieldUID, shardFieldNamespace)
	}
	start, startTop, err := hexArg(args[1], "hexStart")
	if err != nil {
		return err
	}
	end, endTop, err := hexArg(args[2], "hexEnd")
	if err != nil {
		return err
	}
	if startTop || (!endTop && start >= end) {
		return fmt.Errorf("shard range start %s must be less than end %s", hexBound(start, startTop), hexBound(end, endTop))
	}
	*fields = append(*fields, field)
	s.ranges = append(s.ranges, shardRange{start: start, end: end, top: endTop})
	return nil
}

// selectPath turns a chain of field selections (object.metadata.uid)
// into its dotted path.
func selectPath(e ast.Expr) (string, error) {
	switch e.Kind() {
	case ast.IdentKind:
		return e.AsIdent(), nil
	case ast.SelectKind:
		sel := e.AsSelect()
		operand, err := selectPath(sel.Operand())
		if err != nil {
			return "", err
		}
		return operand + "." + sel.FieldName(), nil
	}
	return "", fmt.Errorf("expected field path (e.g. object.metadata.uid), got expression kind %v", e.Kind())
}

// hexArg reads a bound: a string literal '0x' + 16 lowercase hex digits,
// or exactly '0x10000000000000000' (top).
func hexArg(e ast.Expr, name string) (v uint64, top bool, err error) {
	if e.Kind() != ast.LiteralKind {
		return 0, false, fmt.Errorf("%s must be a string literal (e.g. '0xff'), got expression kind %v", name, e.Kind())
	}
	lit, ok := e.AsLiteral().Value().(string)
	if !ok {
		return 0, false, fmt.Errorf("%s must be a string literal, got %T", name, e.AsLiteral().Value())
	}
	digits, ok := strings.CutPrefix(lit, "0x")
	switch {
	case !ok:
		return 0, false, fmt.Errorf("%s must have '0x' prefix, got %q", name, lit)
	case digits == "":
		return 0, false, fmt.Errorf("%s: hex value is required after '0x'", name)
	case len(digits) > 17:
		return 0, false, fmt.Errorf("%s: hex value too long (%d chars, max 17): %q", name, len(digits), digits)
	}
	for _, c := range digits {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0, false, fmt.Errorf("%s: invalid hex character %q in %q", name, string(c), lit)
		}
	}
	switch {
	case len(digits) == 17 && lit == shardTop:
		return 0, true, nil
	case len(digits) == 17:
		return 0, false, fmt.Errorf("%s: 17-digit hex value must be '%s' (2^64), got %q", name, shardTop, lit)
	case len(digits) != 16:
		return 0, false, fmt.Errorf("%s must be a 0x-prefixed 16-digit hex value, got %q (did you mean %q?)",
			name, lit, "0x"+strings.Repeat("0", 16-len(digits))+digits)
	}
	v, err = strconv.ParseUint(digits, 16, 64)
	return v, false, err
}

// hexBound spells a bound as the selector does.
func hexBound(v uint64, top bool) string {
	if top {
		return shardTop
	}
	return fmt.Sprintf("0x%016x", v)
}

// String returns the selector as the server echoes it: each range as
// shardRange(field, 'start', 'end'), joined by " || ".
func (s *Shard) String() string { return s.canonical }

// Matches reports whether the object with metadata m is in the shard.
func (s *Shard) Matches(m *meta.ObjectMeta) bool {
	v := m.UID
	if s.namespace {
		v = m.Namespace
	}
	sum := fnv64a(v)
	for _, r := range s.ranges {
		if sum >= r.start && (r.top || sum < r.end) {
			return true
		}
	}
	return false
}

// fnv64a is the 64-bit FNV-1a hash of s, the hash shard ranges divide.
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
