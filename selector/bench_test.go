package selector

import "testing"

// Run: go test -run '^$' -bench . -benchmem ./selector/

const benchLabelSelector = "app.kubernetes.io/name=web,env in (prod,qa,staging),!canary,tier!=db,release notin (beta)"

func BenchmarkParseLabels(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseLabels(benchLabelSelector); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLabelsMatches(b *testing.B) {
	sel, err := ParseLabels(benchLabelSelector)
	if err != nil {
		b.Fatal(err)
	}
	labels := map[string]string{
		"app.kubernetes.io/name": "web", "env": "prod", "tier": "frontend",
		"pod-template-hash": "7d9f8c6b5", "release": "stable",
	}
	b.ReportAllocs()
	for b.Loop() {
		if !sel.Matches(labels) {
			b.Fatal("no match")
		}
	}
}

func BenchmarkParseFields(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFields(`metadata.namespace=default,spec.nodeName=worker-3,status.phase!=Succeeded`); err != nil {
			b.Fatal(err)
		}
	}
}
