// Package jsonlines reads the gzipped JSON-lines fixture files that tests
// share: one JSON value a line, each decoded into a T.
package jsonlines

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// maxLine bounds one line of a fixture file: the largest fixture, a list
// of many objects, fits with room to spare.
const maxLine = 64 << 20

// ReadGzip decodes every line of every file matching pattern (gzipped
// JSON lines) into a T, in file-name order, failing t on any error or
// when nothing matches.
func ReadGzip[T any](t testing.TB, pattern string) []T {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatalf("fixtures %s: %v", pattern, err)
	}
	if len(files) == 0 {
		t.Fatalf("fixtures %s: no file matches", pattern)
	}
	var out []T
	for _, name := range files {
		out = append(out, readFile[T](t, name)...)
	}
	return out
}

func readFile[T any](t testing.TB, name string) []T {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, maxLine)
	var out []T
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: line %d: %v", name, len(out)+1, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}
