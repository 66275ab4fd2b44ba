package table

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// get walks an object by member names; nil when any step is missing.
func get(v jsonv.Value, path ...string) *jsonv.Value {
	cur := &v
	for _, p := range path {
		cur = cur.Get(p)
		if cur == nil {
			return nil
		}
	}
	return cur
}

func str(v jsonv.Value, path ...string) string {
	if x := get(v, path...); x != nil && x.Kind == jsonv.String {
		return x.Str
	}
	return ""
}

func num(v jsonv.Value, path ...string) int64 {
	if x := get(v, path...); x != nil && x.Kind == jsonv.Number {
		if n, err := strconv.ParseInt(x.Str, 10, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(x.Str, 64); err == nil {
			return int64(f)
		}
	}
	return 0
}

func boolean(v jsonv.Value, path ...string) bool {
	x := get(v, path...)
	return x != nil && x.Kind == jsonv.Bool && x.B
}

func arr(v jsonv.Value, path ...string) []jsonv.Value {
	if x := get(v, path...); x != nil && x.Kind == jsonv.Array {
		return x.Arr
	}
	return nil
}

func members(v jsonv.Value, path ...string) []jsonv.Member {
	if x := get(v, path...); x != nil && x.Kind == jsonv.Object {
		return x.Obj
	}
	return nil
}

func name(obj jsonv.Value) string { return str(obj, "metadata", "name") }

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// age renders the time since an RFC 3339 timestamp as the server does
// ("<unknown>" when absent).
func age(ts string, now time.Time) string {
	if ts == "" {
		return "<unknown>"
	}
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return "<unknown>"
	}
	return HumanDuration(now.Sub(t))
}

// HumanDuration renders a duration the way kubectl's AGE columns read:
// "45s", "3m14s", "17m", "5h2m", "11h", "3d4h", "698d", "2y34d".
func HumanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		if s := int(d/time.Second) % 60; s != 0 {
			return fmt.Sprintf("%dm%ds", minutes, s)
		}
		return fmt.Sprintf("%dm", minutes)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		if m := int(d/time.Minute) % 60; m != 0 {
			return fmt.Sprintf("%dh%dm", hours, m)
		}
		return fmt.Sprintf("%dh", hours)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		if h := hours % 24; h != 0 {
			return fmt.Sprintf("%dd%dh", hours/24, h)
		}
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		if dy := (hours / 24) % 365; dy != 0 {
			return fmt.Sprintf("%dy%dd", hours/24/365, dy)
		}
		return fmt.Sprintf("%dy", hours/24/365)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}

// labelString renders a map of labels as "a=1,b=2", keys sorted.
func labelString(ms []jsonv.Member) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, m.Key+"="+m.Value.Str)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// selectorString renders a LabelSelector as a selector string:
// "app=web,tier in (a,b)", requirements sorted by key.
func selectorString(sel *jsonv.Value) string {
	if sel == nil || sel.Kind != jsonv.Object {
		return "<none>"
	}
	type req struct{ key, text string }
	var reqs []req
	for _, m := range members(*sel, "matchLabels") {
		reqs = append(reqs, req{m.Key, m.Key + "=" + m.Value.Str})
	}
	for _, e := range arr(*sel, "matchExpressions") {
		key := str(e, "key")
		var vals []string
		for _, v := range arr(e, "values") {
			vals = append(vals, v.Str)
		}
		slices.Sort(vals)
		switch str(e, "operator") {
		case "In":
			reqs = append(reqs, req{key, key + " in (" + strings.Join(vals, ",") + ")"})
		case "NotIn":
			reqs = append(reqs, req{key, key + " notin (" + strings.Join(vals, ",") + ")"})
		case "Exists":
			reqs = append(reqs, req{key, key})
		case "DoesNotExist":
			reqs = append(reqs, req{key, "!" + key})
		}
	}
	if len(reqs) == 0 {
		if get(*sel, "matchLabels") == nil && get(*sel, "matchExpressions") == nil {
			return "<none>"
		}
		return ""
	}
	slices.SortStableFunc(reqs, func(a, b req) int { return strings.Compare(a.key, b.key) })
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.text
	}
	return strings.Join(out, ",")
}

// containersAndImages returns the names and images of a pod template's
// containers, comma-joined.
func containersAndImages(podSpec jsonv.Value) (string, string) {
	var names, images []string
	for _, c := range arr(podSpec, "containers") {
		names = append(names, str(c, "name"))
		images = append(images, str(c, "image"))
	}
	return strings.Join(names, ","), strings.Join(images, ",")
}

func quantity(v jsonv.Value, path ...string) string {
	x := get(v, path...)
	if x == nil {
		return ""
	}
	if x.Kind == jsonv.String {
		return x.Str
	}
	return string(jsonv.Marshal(*x))
}
