package kubeproto

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realDir holds protobuf answers of a real kube-apiserver v1.37.2 and the
// JSON answers to the same requests (e2e/capture-proto.sh).
var realDir = filepath.Join("..", "e2e", "testdata", "real", "protobuf")

// TestRealAnswers decodes every captured protobuf answer to exactly the
// JSON the real server gave for the same request, and encodes that JSON
// back to exactly the captured bytes.
func TestRealAnswers(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realDir, "*.pb"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	n := 0
	for _, pbFile := range files {
		if strings.HasSuffix(pbFile, ".watch.pb") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(pbFile), ".pb")
		body, err := os.ReadFile(pbFile)
		require.NoError(t, err)
		want, err := os.ReadFile(strings.TrimSuffix(pbFile, ".pb") + ".json")
		require.NoError(t, err)
		want = bytes.TrimSuffix(want, []byte("\n"))
		got, err := Decode(body)
		if assert.NoError(t, err, name) {
			// The JSON of a PartialObjectMetadataList names each item's
			// kind; its protobuf has no field for it.
			wantItems := strings.ReplaceAll(string(want), `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`, `{"metadata":`)
			if name != "configmaps-metadata" {
				wantItems = string(want)
			}
			assert.Equal(t, wantItems, string(got), "Decode(%s.pb)", name)
		}
		again, err := Encode(want)
		if assert.NoError(t, err, name) {
			assert.Equal(t, body, again, "Encode(%s.json)", name)
		}
		n++
	}
	assert.GreaterOrEqual(t, n, 20)
}

var bookmarkRV = regexp.MustCompile(`^\{"type":"BOOKMARK","object":\{"kind":"ConfigMap","apiVersion":"v1","metadata":\{"resourceVersion":"[0-9]+"`)

// TestRealWatch reads the captured protobuf watch stream frame by frame:
// every event decodes to the line the JSON watch gave, and every frame
// is rewritten byte for byte.
func TestRealWatch(t *testing.T) {
	stream, err := os.ReadFile(filepath.Join(realDir, "configmaps.watch.pb"))
	require.NoError(t, err)
	lines, err := os.Open(filepath.Join(realDir, "configmaps.watch.json"))
	require.NoError(t, err)
	defer lines.Close()
	sc := bufio.NewScanner(lines)
	sc.Buffer(nil, 1<<20)
	r := bytes.NewReader(stream)
	n := 0
	for sc.Scan() {
		frame, err := ReadFrame(r, MaxFrameSize)
		require.NoError(t, err, "frame %d", n)
		got, err := DecodeWatchEvent(frame)
		require.NoError(t, err)
		// The two watches ran one after the other: their bookmarks
		// carry the server's revision of the moment.
		assert.Equal(t, bookmarkRV.ReplaceAllString(sc.Text(), "RV"), bookmarkRV.ReplaceAllString(string(got), "RV"), "event %d", n)
		typ, obj, err := ParseWatchEvent(frame)
		require.NoError(t, err)
		objJSON, err := Decode(obj)
		require.NoError(t, err)
		reencoded, err := Encode(objJSON)
		require.NoError(t, err)
		assert.Equal(t, frame, AppendWatchFrame(nil, typ, reencoded)[4:], "frame %d", n)
		n++
	}
	assert.Equal(t, 0, r.Len(), "protobuf frames left after the last JSON event")
	assert.GreaterOrEqual(t, n, 3)
}
