package kubeproto

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubecache/kubecache/kubeproto"
)

// quantityCases exercise the parser's two paths, its rounding, caps and
// the forms it keeps as written.
var quantityCases = []string{
	"0", "1", "-1", "+1", "01", "001", "0.1", ".5", "5.", "1.0", "1.50", "100m", "1000m", "1500m", "0.001", "0.0001",
	"1n", "1u", "1m", "1k", "1M", "1G", "1T", "1P", "1E", "10E", "1000E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei",
	"8Ki", "1024Ki", "1023Ki", "1025Ki", "0.5Ki", "1.5Ki", "1.5Gi", "-1.5Gi", "9223372036854775807", "9223372036854775808",
	"92233720368547758070", "9223372036854775807Ki", "8Ei", "16Ei", "1e3", "1E3", "1e-3", "1e-9", "1e-10", "1.5e3",
	"12e3", "12e4", "1e18", "1e19", "1e21", "1e+3", "123456789012345678901234567890", "0.000000000000000000001",
	"1.000000001", "1.0000000001", "-0.0000000001", "3.14159265358979323846", "100Mi", "512Mi", "250m", "2000m",
	"4096", "1048576", "1073741824", "0.25", "-0", "+0", "0e0", "0Ki", "1Kii", "1.2.3", "abc", "", "1 ", " 1", "1e", "e3",
	"1ki", "1K", "--1", "1.5n", "0.5n", "1.5u", "999999999999999999", "1000000000000000000", "1e-20", "5e-1",
}

// realQuantity is what a real server stores for s sent as a JSON
// string, or an error.
func realQuantity(s string) (string, error) {
	var q resource.Quantity
	js, _ := json.Marshal(s)
	if err := q.UnmarshalJSON(js); err != nil {
		return "", err
	}
	return q.String(), nil
}

// ourQuantity runs s through kubeproto as a ResourceQuota's spec.hard
// value and reads the stored form back from the JSON.
func ourQuantity(t testing.TB, s string) (string, error) {
	js, _ := json.Marshal(s)
	body, err := kubeproto.Encode([]byte(`{"kind":"ResourceQuota","apiVersion":"v1","spec":{"hard":{"x":` + string(js) + `}}}`))
	if err != nil {
		return "", err
	}
	out, err := kubeproto.Decode(body)
	require.NoError(t, err)
	var rq struct {
		Spec struct {
			Hard map[string]string `json:"hard"`
		} `json:"spec"`
	}
	require.NoError(t, json.Unmarshal(out, &rq))
	return rq.Spec.Hard["x"], nil
}

// TestQuantityMatchesResource compares kubeproto's canonical quantities
// with apimachinery's on a table of edge cases.
func TestQuantityMatchesResource(t *testing.T) {
	for _, s := range quantityCases {
		want, wantErr := realQuantity(s)
		got, err := ourQuantity(t, s)
		if wantErr != nil {
			assert.Error(t, err, "quantity %q: real server refuses it (%v)", s, wantErr)
			continue
		}
		if assert.NoError(t, err, "quantity %q", s) {
			assert.Equal(t, want, got, "quantity %q", s)
		}
	}
}

// hugeExponent matches an exponent suffix of more than four digits.
var hugeExponent = regexp.MustCompile(`[eE][-+]?[0-9]{5}`)

// FuzzQuantityMatchesResource is the same comparison on any string.
func FuzzQuantityMatchesResource(f *testing.F) {
	for _, s := range quantityCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64 || hugeExponent.MatchString(s) {
			return // apimachinery takes minutes over 10^(10^9)
		}
		want, wantErr := realQuantity(s)
		got, err := ourQuantity(t, s)
		if wantErr != nil {
			if err == nil {
				t.Fatalf("quantity %q: real refuses (%v), kubeproto gives %q", s, wantErr, got)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("quantity %q: real %q, kubeproto %q (%v)", s, want, got, err)
		}
	})
}
