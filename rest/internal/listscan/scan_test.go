package listscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/meta"
)

// collect scans input and returns copies of the items.
func collect(r io.Reader) ([]string, meta.TypeMeta, meta.ListMeta, error) {
	var items []string
	tm, lm, err := Scan(r, func(item []byte) error {
		items = append(items, string(item))
		return nil
	})
	return items, tm, lm, err
}

func TestScan(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		items []string
		tm    meta.TypeMeta
		rv    string
		cont  string
	}{
		{name: "usual order",
			in:    `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"c"},"items":[{"a":1},{"b":[2,{"c":"}"}]}]}`,
			items: []string{`{"a":1}`, `{"b":[2,{"c":"}"}]}`}, tm: meta.TypeMeta{Kind: "PodList", APIVersion: "v1"}, rv: "10", cont: "c"},
		{name: "metadata after items, unknown keys, whitespace",
			in:    " {\n \"items\" : [ {\"x\":\"\\\"]\"} ] ,\n \"extra\":{\"deep\":[1,2,{}]}, \"metadata\":{\"resourceVersion\":\"3\"},\"kind\":\"L\"}\n\n",
			items: []string{`{"x":"\"]"}`}, tm: meta.TypeMeta{Kind: "L"}, rv: "3"},
		{name: "empty items", in: `{"kind":"PodList","items":[]}`, tm: meta.TypeMeta{Kind: "PodList"}},
		{name: "null items", in: `{"items":null,"metadata":{}}`},
		{name: "no items", in: `{"kind":"Status"}`, tm: meta.TypeMeta{Kind: "Status"}},
		{name: "items with unicode and escapes",
			in:    `{"items":[{"n":"\u00e9\n\t\\"},{"k":"日本"}]}`,
			items: []string{`{"n":"\u00e9\n\t\\"}`, `{"k":"日本"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time as well as in one piece: chunking must
			// not matter.
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				items, tm, lm, err := collect(r)
				require.NoError(t, err)
				assert.Equal(t, tt.items, items)
				assert.Equal(t, tt.tm, tm)
				assert.Equal(t, tt.rv, lm.ResourceVersion)
				assert.Equal(t, tt.cont, lm.Continue)
			}
		})
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct {
		in       string
		want     string
		notAList bool
		eof      bool
	}{
		{in: ``, want: "unexpected EOF", eof: true},
		{in: `[]`, want: "the list is an array, not an object", notAList: true},
		{in: `"x"`, want: "the list is a string", notAList: true},
		{in: `{"items":{}}`, want: "items is an object, not an array", notAList: true},
		{in: `{"items":"x"}`, want: "items is a string", notAList: true},
		{in: `{"items":[1]}`, want: "items[0] is a number, not an object", notAList: true},
		{in: `{"items":[{},null]}`, want: "items[1] is null, not an object", notAList: true},
		{in: `{"items":[],"items":[]}`, want: `key "items" appears twice`, notAList: true},
		{in: `{"kind":1}`, want: "kind at byte 8: json: cannot unmarshal number"},
		{in: `{"metadata":{"resourceVersion":5}}`, want: "metadata at byte 12: json: cannot unmarshal number"},
		{in: `{"items":[{"a":1}],}`, want: "syntax error at byte 19: got '}', want a key"},
		{in: `{"items":[{"a":1} {}]}`, want: "after items[0]: got '{', want ',' or ']'"},
		{in: `{"items":[{"a":1]}`, want: "syntax error at byte 16: ']' closes '{'"},
		{in: `{"extra":tru,"items":[]}`, want: `invalid value "tru"`},
		{in: `{"extra":1 2}`, want: "want ',' or '}'"},
		{in: `{"items":nul}`, want: `syntax error at byte 9: invalid value "nul"`},
		{in: `{"items":[{"a":"\`, want: "unexpected EOF", eof: true},
		{in: `{"items":[{"a":"x`, want: "unexpected EOF", eof: true},
		{in: `{"kind":"L"`, want: "unexpected EOF", eof: true},
		{in: `{"kind":"L" "apiVersion":"v1"}`, want: "want ',' or '}'"},
		{in: `{"kind":"\x"}`, want: "kind at byte 8: invalid character 'x' in string escape code"},
		{in: `{1:2}`, want: "got '1', want a key"},
		{in: `{"items":[` + strings.Repeat("{", 10001), want: "nested too deeply"},
		{in: `{"items":[{"a":1},{"b":`, want: "items[1]: unexpected EOF", eof: true},
		{in: `{"items":[{"a":1}`, want: "unexpected EOF", eof: true},
		{in: `{"kind":"x"`, want: "unexpected EOF", eof: true},
		{in: `{"items":[{"a":1}]}{}`, want: "data after the list object", notAList: true},
		{in: `{"items":[{"a":1}]} x`, want: "data after the list object at byte 20 ('x')", notAList: true},
		{in: `{"items":[{"a":1}}`, want: "after items[0]: got '}', want ',' or ']'"},
		{in: `{"kind" "x"}`, want: `after key "kind": got '"', want ':'`},
	}
	for _, tt := range tests {
		_, _, _, err := collect(strings.NewReader(tt.in))
		require.Error(t, err, "Scan(%q)", tt.in)
		assert.Contains(t, err.Error(), tt.want, "Scan(%q)", tt.in)
		assert.Equal(t, tt.notAList, errors.Is(err, ErrNotAList), "Scan(%q) = %v; ErrNotAList", tt.in, err)
		assert.Equal(t, tt.eof, errors.Is(err, io.ErrUnexpectedEOF), "Scan(%q) = %v; ErrUnexpectedEOF", tt.in, err)
	}
}

func TestScanCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	_, _, err := Scan(strings.NewReader(`{"items":[{},{},{}]}`), func([]byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	assert.Same(t, stop, err, "the callback's error comes back unchanged")
	assert.Equal(t, 2, n)
}

func TestScanReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`{"items":[{"a":1},`), iotest.ErrReader(boom))
	items, _, _, err := collect(r)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, []string{`{"a":1}`}, items)
}

// TestScanMemory checks that the scanner does not hold the whole body: a
// list of many items is read with a reader that counts how far ahead of
// the callback the scanner has read.
func TestScanMemory(t *testing.T) {
	const n, size = 500, 4 << 10
	body := bigList(n, size)
	cr := &countingReader{r: bytes.NewReader(body)}
	maxAhead := 0
	consumed := 0
	_, _, err := Scan(cr, func(item []byte) error {
		consumed += len(item)
		maxAhead = max(maxAhead, cr.n-consumed)
		return nil
	})
	require.NoError(t, err)
	assert.Less(t, maxAhead, 256<<10, "the scanner read %d bytes ahead of the items it handed over", maxAhead)
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// bigList makes a PodList of n items of about size bytes each.
func bigList(n, size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[`)
	pad := strings.Repeat("x", size-200)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"pod-%d","namespace":"default","resourceVersion":"%d","labels":{"app":"web"}},"spec":{"nodeName":"node-1","containers":[{"name":"c","image":"%s"}]},"status":{"phase":"Running"}}`, i, i, pad)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func BenchmarkScan(b *testing.B) {
	body := bigList(5000, 4<<10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, _, err := Scan(bytes.NewReader(body), func([]byte) error { n++; return nil }); err != nil || n != 5000 {
			b.Fatal(err, n)
		}
	}
}

// BenchmarkJSONUnmarshalList is the plain version BenchmarkScan is measured
// against: the whole body read into memory, then encoding/json splitting
// it into raw items, all of which it holds at once.
func BenchmarkJSONUnmarshalList(b *testing.B) {
	body := bigList(5000, 4<<10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		data, err := io.ReadAll(bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		var list struct {
			Metadata meta.ListMeta     `json:"metadata"`
			Items    []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(data, &list); err != nil || len(list.Items) != 5000 {
			b.Fatal(err, len(list.Items))
		}
	}
}

// FuzzScan checks the scanner against encoding/json: when Scan succeeds the
// input is a valid JSON object whose items it handed over exactly, and
// chunking never changes the outcome.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"c"},"items":[{"a":1},{"b":[2,{"c":"}"}]}]}`))
	f.Add([]byte(`{"items":[{"x":"\"]"}],"metadata":{"resourceVersion":"3"}}`))
	f.Add([]byte(`{"items":null}`))
	f.Add([]byte(`{"items":[1]}`))
	f.Add([]byte(`[{}]`))
	f.Add([]byte(`{"items":[{}]} {}`))
	f.Add(bigList(3, 300))
	f.Fuzz(func(t *testing.T, data []byte) {
		items, tm, lm, err := collect(bytes.NewReader(data))
		items2, tm2, lm2, err2 := collect(iotest.OneByteReader(bytes.NewReader(data)))
		require.Equal(t, fmt.Sprint(err), fmt.Sprint(err2), "chunking changed the outcome")
		assert.Equal(t, items, items2)
		assert.Equal(t, tm, tm2)
		assert.Equal(t, lm, lm2)
		for _, it := range items {
			// Structurally an object, whatever else.
			require.True(t, strings.HasPrefix(it, "{") && strings.HasSuffix(it, "}"), "item %q", it)
		}
		if !json.Valid(data) {
			return
		}
		var ref struct {
			Kind     string            `json:"kind"`
			Metadata meta.ListMeta     `json:"metadata"`
			Items    []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(data, &ref) != nil || err != nil {
			// encoding/json and Scan differ on a few valid inputs: keys
			// matched case-insensitively, repeated keys, items that are
			// not objects.
			return
		}
		assert.Equal(t, len(ref.Items), len(items))
		for i := range min(len(items), len(ref.Items)) {
			assert.JSONEq(t, string(ref.Items[i]), items[i])
		}
	})
}

func TestScanTypedSeesListKindBeforeItems(t *testing.T) {
	input := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`
	var kinds []string
	_, _, err := ScanTyped(iotest.OneByteReader(strings.NewReader(input)), func(list meta.TypeMeta, item []byte) error {
		kinds = append(kinds, list.APIVersion+"/"+list.Kind)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"v1/PodList", "v1/PodList"}, kinds)

	// When kind comes after items, the callback sees it empty, as documented.
	late := `{"items":[{"metadata":{"name":"a"}}],"kind":"PodList"}`
	var seen meta.TypeMeta
	tm, _, err := ScanTyped(strings.NewReader(late), func(list meta.TypeMeta, item []byte) error {
		seen = list
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, meta.TypeMeta{}, seen)
	assert.Equal(t, "PodList", tm.Kind)
}

// BenchmarkScanPods splits a list of 2,000 copies of the suite's 5 KB pod
// (bench/testdata/pod.json): many short keys and strings, as a real
// server's lists are.
func BenchmarkScanPods(b *testing.B) {
	pod, err := os.ReadFile("../../../bench/testdata/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, pod); err != nil {
		b.Fatal(err)
	}
	const n = 2000
	var body bytes.Buffer
	body.WriteString(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[`)
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(compact.Bytes())
	}
	body.WriteString(`]}`)
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		count := 0
		if _, _, err := Scan(bytes.NewReader(body.Bytes()), func([]byte) error { count++; return nil }); err != nil || count != n {
			b.Fatal(err, count)
		}
	}
}
