package differential

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// volatile names the JSON keys whose values differ between any two servers
// (and between two runs on one server): they are compared by presence and
// type, not value.
var volatile = map[string]string{
	"resourceVersion":         "<rv>",
	"uid":                     "<uid>",
	"creationTimestamp":       "<time>",
	"deletionTimestamp":       "<time>",
	"time":                    "<time>",
	"firstTimestamp":          "<time>",
	"lastTimestamp":           "<time>",
	"eventTime":               "<time>",
	"renewTime":               "<time>",
	"acquireTime":             "<time>",
	"lastPhaseTransitionTime": "<time>",
	"continue":                "<continue>",
	"selfLink":                "<selfLink>",
}

var (
	digits = regexp.MustCompile(`[0-9]{2,}`)
	// rvInMessage finds the resourceVersions a message quotes (the
	// Timeout of a too-large one, a delete precondition's Conflict), whose
	// length depends on how many writes each server has seen: one digit
	// on a fresh fake server, three on the real one.
	rvInMessage = regexp.MustCompile(`(resource version: |current: |ResourceVersion in the precondition \(|ResourceVersion in record \()[0-9]+`)
	uidRE       = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	ageRE       = regexp.MustCompile(`^([0-9]+[smhdy])+$`)
)

// normalize rewrites a decoded JSON value in place so that two servers'
// answers compare equal when they mean the same: volatile values become
// placeholders, numbers in messages become N, table ages become <age>.
func normalize(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e, k)
		}
		return x
	case []any:
		for i, e := range x {
			if key == "cells" {
				if s, ok := e.(string); ok && ageRE.MatchString(s) {
					x[i] = "<age>"
					continue
				}
			}
			x[i] = normalize(e, "")
		}
		if key == "managedFields" {
			sortManagedFields(x)
		}
		return x
	case string:
		if p, ok := volatile[key]; ok && x != "" {
			return p
		}
		if key == "message" {
			x = rvInMessage.ReplaceAllString(uidRE.ReplaceAllString(x, "<uid>"), "${1}N")
			return digits.ReplaceAllString(x, "N")
		}
		return x
	case json.Number:
		if key == "resourceVersion" || key == "rv" {
			return "<rv>"
		}
		return x
	default:
		return x
	}
}

// sortManagedFields puts managedFields entries in the order both servers
// give them once their times are placeholders. A server orders entries by
// operation, then by the second of their time, then by manager and
// subresource; which of two writes made in quick succession fall in the
// same second differs from server to server and run to run, so the
// comparison orders by operation, manager and subresource alone.
func sortManagedFields(entries []any) {
	field := func(e any, k string) string {
		m, _ := e.(map[string]any)
		s, _ := m[k].(string)
		return s
	}
	sort.SliceStable(entries, func(i, j int) bool {
		for _, k := range []string{"operation", "manager", "subresource"} {
			if a, b := field(entries[i], k), field(entries[j], k); a != b {
				return a < b
			}
		}
		return false
	})
}

// Difference is one way the fake server's answer differs from the real
// one's.
type Difference struct {
	// Where is "<row>: <step>"; Path is the JSON path (or "status code",
	// "header X", "events").
	Where, Path string
	Real, Fake  string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: %s: real %s, fake %s", d.Where, d.Path, d.Real, d.Fake)
}

// CompareOptions tune one comparison.
type CompareOptions struct {
	// StatusOnly compares the status code and Content-Type only (discovery
	// and OpenAPI documents, which list different resources by design).
	StatusOnly bool
	// CountBookmarks compares whether the watches had plain bookmarks.
	CountBookmarks bool
	// IgnorePaths are JSON paths (prefixes, with [] for any index) left out.
	IgnorePaths []string
}

// compareResponses lists the differences between the real and the fake
// answer to the same request.
func compareResponses(where string, real, fake *Response, opts CompareOptions) []Difference {
	var out []Difference
	add := func(path, r, f string) {
		out = append(out, Difference{Where: where, Path: path, Real: r, Fake: f})
	}
	if real.Code != fake.Code {
		add("status code", fmt.Sprint(real.Code), fmt.Sprint(fake.Code))
	}
	rct, fct := mediaType(real.Header.Get("Content-Type")), mediaType(fake.Header.Get("Content-Type"))
	if rct != fct {
		add("header Content-Type", q(real.Header.Get("Content-Type")), q(fake.Header.Get("Content-Type")))
	}
	if opts.StatusOnly {
		return out
	}
	if rw, fw := warnings(real), warnings(fake); rw != fw {
		add("header Warning", q(rw), q(fake.Header.Get("Warning")))
	}
	if (real.Header.Get("Retry-After") != "") != (fake.Header.Get("Retry-After") != "") {
		add("header Retry-After", q(real.Header.Get("Retry-After")), q(fake.Header.Get("Retry-After")))
	}
	if real.Events != nil || fake.Events != nil {
		rs, fs := eventSequence(real.Events), eventSequence(fake.Events)
		if rs != fs {
			add("event types", rs, fs)
		} else {
			re, fe := significant(real.Events), significant(fake.Events)
			for i := range re {
				out = append(out, diffJSON(where, fmt.Sprintf("events[%d].object", i), re[i].Object, fe[i].Object, opts)...)
			}
		}
		if opts.CountBookmarks {
			if rb, fb := plainBookmarks(real.Events) > 0, plainBookmarks(fake.Events) > 0; rb != fb {
				add("plain bookmarks", fmt.Sprint(plainBookmarks(real.Events)), fmt.Sprint(plainBookmarks(fake.Events)))
			}
		}
		if (real.StreamErr == nil) != (fake.StreamErr == nil) {
			add("stream end", errString(real.StreamErr), errString(fake.StreamErr))
		}
		return out
	}
	rj, fj := isJSON(real.Body), isJSON(fake.Body)
	switch {
	case rj && fj:
		out = append(out, diffJSON(where, "", real.Body, fake.Body, opts)...)
	case rj != fj:
		add("body", abbrev(real.Body), abbrev(fake.Body))
	default:
		if !bytes.Equal(bytes.TrimSpace(real.Body), bytes.TrimSpace(fake.Body)) {
			add("body", abbrev(real.Body), abbrev(fake.Body))
		}
	}
	return out
}

func warnings(r *Response) string {
	ws := slices.Clone(r.Header.Values("Warning"))
	sort.Strings(ws)
	return strings.Join(ws, " | ")
}

func errString(err error) string {
	if err == nil {
		return "clean end"
	}
	return q(err.Error())
}

func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.ReplaceAll(ct, " ", ""))
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		if k == "charset" {
			continue
		}
		keys = append(keys, k+"="+params[k])
	}
	sort.Strings(keys)
	return strings.Join(append([]string{mt}, keys...), ";")
}

// eventSequence is the watch's event types in order, each with the
// object's name (or a Status's reason); the initial-events-end bookmark is
// written "BOOKMARK(initial-events-end)". Plain bookmarks are left out:
// their number and timing are not guaranteed (see CountBookmarks).
func eventSequence(evs []Event) string {
	var parts []string
	for _, ev := range significant(evs) {
		t := ev.Type
		m := decodeJSON(ev.Object)
		if t == "BOOKMARK" {
			t = "BOOKMARK(initial-events-end)"
		} else if name := str(m, "metadata", "name"); name != "" {
			t += "(" + name + ")"
		} else if reason := str(m, "reason"); reason != "" {
			t += "(" + reason + ")"
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, " ")
}

func isPlainBookmark(ev Event) bool {
	return ev.Type == "BOOKMARK" && str(decodeJSON(ev.Object), "metadata", "annotations", "k8s.io/initial-events-end") != "true"
}

// significant drops the plain bookmarks.
func significant(evs []Event) []Event {
	var out []Event
	for _, ev := range evs {
		if !isPlainBookmark(ev) {
			out = append(out, ev)
		}
	}
	return out
}

// plainBookmarks counts the plain bookmarks of a watch.
func plainBookmarks(evs []Event) int {
	n := 0
	for _, ev := range evs {
		if isPlainBookmark(ev) {
			n++
		}
	}
	return n
}

func isJSON(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && (b[0] == '{' || b[0] == '[') && json.Valid(b)
}

func q(s string) string { return fmt.Sprintf("%q", s) }

func abbrev(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return q(s)
}

// diffJSON compares two JSON documents after normalize.
func diffJSON(where, prefix string, a, b []byte, opts CompareOptions) []Difference {
	var va, vb any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if err := da.Decode(&va); err != nil {
		return []Difference{{Where: where, Path: prefix, Real: "undecodable: " + err.Error(), Fake: abbrev(b)}}
	}
	if err := db.Decode(&vb); err != nil {
		return []Difference{{Where: where, Path: prefix, Real: abbrev(a), Fake: "undecodable: " + err.Error()}}
	}
	va, vb = normalize(va, ""), normalize(vb, "")
	var out []Difference
	walk(prefix, va, vb, opts, func(path, r, f string) {
		out = append(out, Difference{Where: where, Path: path, Real: r, Fake: f})
	})
	return out
}

func ignored(path string, opts CompareOptions) bool {
	for _, p := range opts.IgnorePaths {
		if matchPath(p, path) {
			return true
		}
	}
	return false
}

// matchPath reports whether path starts with pattern, where "[]" in the
// pattern matches any index.
func matchPath(pattern, path string) bool {
	for pattern != "" {
		if strings.HasPrefix(pattern, "[]") {
			if !strings.HasPrefix(path, "[") {
				return false
			}
			i := strings.IndexByte(path, ']')
			if i < 0 {
				return false
			}
			pattern, path = pattern[2:], path[i+1:]
			continue
		}
		if path == "" || pattern[0] != path[0] {
			return false
		}
		pattern, path = pattern[1:], path[1:]
	}
	return path == "" || path[0] == '.' || path[0] == '['
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func walk(path string, a, b any, opts CompareOptions, add func(path, real, fake string)) {
	if ignored(path, opts) {
		return
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			add(path, show(a), show(b))
			return
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := join(path, k)
			if ignored(p, opts) {
				continue
			}
			ea, oka := x[k]
			eb, okb := y[k]
			switch {
			case !okb:
				add(p, show(ea), "(absent)")
			case !oka:
				add(p, "(absent)", show(eb))
			default:
				walk(p, ea, eb, opts, add)
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			add(path, show(a), show(b))
			return
		}
		if len(x) != len(y) {
			add(path+".length", fmt.Sprint(len(x)), fmt.Sprint(len(y)))
			if names := itemNames(x, y); names != "" {
				add(path+" names", itemNamesOf(x), itemNamesOf(y))
			}
			return
		}
		for i := range x {
			walk(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], opts, add)
		}
	default:
		if show(a) != show(b) {
			add(path, show(a), show(b))
		}
	}
}

func itemNames(x, y []any) string {
	if itemNamesOf(x) == "" && itemNamesOf(y) == "" {
		return ""
	}
	return "yes"
}

// itemNamesOf lists metadata.name of the elements, for lists of objects.
func itemNamesOf(xs []any) string {
	var names []string
	for _, e := range xs {
		m, ok := e.(map[string]any)
		if !ok {
			return ""
		}
		n := str(m, "metadata", "name")
		if n == "" {
			n = str(m, "name")
		}
		if n == "" {
			return ""
		}
		names = append(names, n)
	}
	return "[" + strings.Join(names, " ") + "]"
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
