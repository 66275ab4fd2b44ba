package metrics

import (
	"bufio"
	"cmp"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ContentType is the media type of the text exposition.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// ObjectCount is one resource's number of stored objects.
type ObjectCount struct {
	Group, Resource string
	Count           int
}

// Write renders every series in the Prometheus text format, families in
// name order and series in label order, as the real server's registry
// does. objects gives apiserver_resource_objects.
func (m *Registry) Write(w io.Writer, objects []ObjectCount) error {
	bw := bufio.NewWriter(w)
	m.mu.Lock()
	m.writeInflightLocked(bw)
	m.writeLongRunningLocked(bw)
	m.writeDurationsLocked(bw)
	m.writeTotalLocked(bw)
	m.mu.Unlock()
	writeObjects(bw, objects)
	m.mu.Lock()
	m.writeWatchEventsLocked(bw)
	m.mu.Unlock()
	return bw.Flush()
}

// header writes a family's HELP and TYPE lines.
func header(w *bufio.Writer, name, typ, help string) {
	w.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
}

// labels renders name="value" pairs, values escaped.
func labels(pairs ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(pairs[i])
		b.WriteString(`="`)
		v := strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(pairs[i+1])
		b.WriteString(v)
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

func (k requestKey) pairs() []string {
	return []string{"component", k.component, "dry_run", k.dryRun, "group", k.group, "resource", k.resource,
		"scope", k.scope, "subresource", k.subresource, "verb", k.verb, "version", k.version}
}

func compareKeys(a, b requestKey) int {
	return cmp.Compare(strings.Join(a.pairs(), "\x00"), strings.Join(b.pairs(), "\x00"))
}

func (m *Registry) writeInflightLocked(w *bufio.Writer) {
	header(w, "apiserver_current_inflight_requests", "gauge", "[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.")
	for _, kind := range slices.Sorted(maps.Keys(m.inflight)) {
		w.WriteString("apiserver_current_inflight_requests" + labels("request_kind", kind) + " " + strconv.FormatInt(m.inflight[kind], 10) + "\n")
	}
}

func (m *Registry) writeLongRunningLocked(w *bufio.Writer) {
	header(w, "apiserver_longrunning_requests", "gauge", "[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.")
	keys := slices.SortedFunc(maps.Keys(m.longRunning), func(a, b longKey) int {
		return cmp.Compare(a.component+"\x00"+a.group+"\x00"+a.resource+"\x00"+a.scope+"\x00"+a.subresource+"\x00"+a.verb+"\x00"+a.version,
			b.component+"\x00"+b.group+"\x00"+b.resource+"\x00"+b.scope+"\x00"+b.subresource+"\x00"+b.verb+"\x00"+b.version)
	})
	for _, k := range keys {
		w.WriteString("apiserver_longrunning_requests" + labels("component", k.component, "group", k.group, "resource", k.resource,
			"scope", k.scope, "subresource", k.subresource, "verb", k.verb, "version", k.version) + " " + strconv.FormatInt(m.longRunning[k], 10) + "\n")
	}
}

func (m *Registry) writeDurationsLocked(w *bufio.Writer) {
	header(w, "apiserver_request_duration_seconds", "histogram", "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.")
	for _, k := range slices.SortedFunc(maps.Keys(m.durations), compareKeys) {
		writeHistogram(w, "apiserver_request_duration_seconds", k.pairs(), durationBuckets, m.durations[k])
	}
}

// writeHistogram writes one series of a histogram: its cumulative
// buckets (bounds, then +Inf), sum and count, labelled with base.
func writeHistogram(w *bufio.Writer, name string, base []string, bounds []float64, h *histogram) {
	var cum uint64
	for i, le := range bounds {
		cum += h.buckets[i]
		w.WriteString(name + "_bucket" + labels(append(base, "le", formatFloat(le))...) + " " + strconv.FormatUint(cum, 10) + "\n")
	}
	w.WriteString(name + "_bucket" + labels(append(base, "le", "+Inf")...) + " " + strconv.FormatUint(h.count, 10) + "\n")
	w.WriteString(name + "_sum" + labels(base...) + " " + formatFloat(h.sum) + "\n")
	w.WriteString(name + "_count" + labels(base...) + " " + strconv.FormatUint(h.count, 10) + "\n")
}

func (m *Registry) writeTotalLocked(w *bufio.Writer) {
	header(w, "apiserver_request_total", "counter", "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.")
	type row struct {
		code int
		key  requestKey
	}
	var rows []row
	for k, codes := range m.total {
		for c := range codes {
			rows = append(rows, row{c, k})
		}
	}
	slices.SortFunc(rows, func(a, b row) int {
		if c := cmp.Compare(strconv.Itoa(a.code), strconv.Itoa(b.code)); c != 0 {
			return c
		}
		return compareKeys(a.key, b.key)
	})
	for _, r := range rows {
		w.WriteString("apiserver_request_total" + labels(append([]string{"code", strconv.Itoa(r.code)}, r.key.pairs()...)...) + " " + strconv.FormatUint(m.total[r.key][r.code], 10) + "\n")
	}
}

// writeWatchEventsLocked writes apiserver_watch_events_sizes and
// apiserver_watch_events_total, series by group, resource and version.
func (m *Registry) writeWatchEventsLocked(w *bufio.Writer) {
	keys := slices.SortedFunc(maps.Keys(m.watchEvents), func(a, b resourceKey) int {
		return cmp.Compare(a.group+"\x00"+a.resource+"\x00"+a.version, b.group+"\x00"+b.resource+"\x00"+b.version)
	})
	header(w, "apiserver_watch_events_sizes", "histogram", "[BETA] Watch event size distribution in bytes")
	for _, k := range keys {
		base := []string{"group", k.group, "resource", k.resource, "version", k.version}
		writeHistogram(w, "apiserver_watch_events_sizes", base, sizeBuckets, m.watchEvents[k])
	}
	header(w, "apiserver_watch_events_total", "counter", "[BETA] Number of events sent in watch clients")
	for _, k := range keys {
		w.WriteString("apiserver_watch_events_total" + labels("group", k.group, "resource", k.resource, "version", k.version) + " " + strconv.FormatUint(m.watchEvents[k].count, 10) + "\n")
	}
}

func writeObjects(w *bufio.Writer, objects []ObjectCount) {
	header(w, "apiserver_resource_objects", "gauge", "[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.")
	sorted := slices.Clone(objects)
	slices.SortFunc(sorted, func(a, b ObjectCount) int {
		return cmp.Compare(a.Group+"\x00"+a.Resource, b.Group+"\x00"+b.Resource)
	})
	for _, o := range sorted {
		w.WriteString("apiserver_resource_objects" + labels("group", o.Group, "resource", o.Resource) + " " + strconv.Itoa(o.Count) + "\n")
	}
}
