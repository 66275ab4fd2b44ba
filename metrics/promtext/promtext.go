package promtext

import (
	"bufio"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/metrics"
)

// ContentType is the media type of what Write produces.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Write writes ms, sorted by name as Registry.Snapshot returns them, in
// the text format: a "# TYPE" line per name, then one line per counter or
// gauge, and for a histogram its cumulative _bucket lines (le="+Inf"
// last), _sum and _count. Label values are escaped as the format wants
// (backslash, double quote, newline).
func Write(w io.Writer, ms []metrics.Metric) error {
	bw := bufio.NewWriter(w)
	last := ""
	for _, m := range ms {
		if m.Name != last {
			bw.WriteString("# TYPE " + m.Name + " " + typeName(m.Kind) + "\n")
			last = m.Name
		}
		if m.Kind != metrics.Histogram {
			writeSample(bw, m.Name, m.Labels, "", m.Value)
			continue
		}
		for i, b := range m.Buckets {
			writeSample(bw, m.Name+"_bucket", m.Labels, formatFloat(b), float64(m.Counts[i]))
		}
		writeSample(bw, m.Name+"_bucket", m.Labels, "+Inf", float64(m.Count))
		writeSample(bw, m.Name+"_sum", m.Labels, "", m.Sum)
		writeSample(bw, m.Name+"_count", m.Labels, "", float64(m.Count))
	}
	return bw.Flush()
}

// Handler serves r's current metrics in the text format.
func Handler(r *metrics.Registry) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ContentType)
		_ = Write(w, r.Snapshot())
	})
}

func typeName(k metrics.Kind) string {
	switch k {
	case metrics.Counter:
		return "counter"
	case metrics.Gauge:
		return "gauge"
	case metrics.Histogram:
		return "histogram"
	}
	return "untyped"
}

// writeSample writes `name{labels,le="…"} value`.
func writeSample(w *bufio.Writer, name string, labels []string, le string, v float64) {
	w.WriteString(name)
	if len(labels) >= 2 || le != "" {
		w.WriteByte('{')
		sep := ""
		for i := 0; i+1 < len(labels); i += 2 {
			w.WriteString(sep + labels[i] + `="` + escape(labels[i+1]) + `"`)
			sep = ","
		}
		if le != "" {
			w.WriteString(sep + `le="` + le + `"`)
		}
		w.WriteByte('}')
	}
	w.WriteString(" " + formatFloat(v) + "\n")
}

var escaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escape(s string) string { return escaper.Replace(s) }

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
