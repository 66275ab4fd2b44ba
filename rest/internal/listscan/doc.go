// Package listscan reads a Kubernetes list response (a PodList, a
// ConfigMapList, any <Kind>List) from a stream, handing over each element of
// "items" as raw JSON while the body is being read, so a list of any size is
// processed in the memory of its largest item.
//
// The envelope is a JSON object with "kind", "apiVersion", "metadata" (a
// ListMeta) and "items", in any order; other keys are skipped. The envelope
// is checked strictly. Items (and skipped values) are checked structurally
// only: strings, escapes and matching brackets, which is enough to find
// where each ends; their own syntax is checked by whoever decodes them, as
// the watch frame decoder does for watch events.
//
// It sits under rest's List and ListItems, between the response body and
// the caller's callback.
//
// It is a fast path. The plain version reads the whole body and lets
// encoding/json split it (json.Unmarshal into a struct with Items
// []json.RawMessage): the body and every item are in memory at once, and
// every byte is tokenized twice. Scan reads the body in chunks and finds
// each item's end with a byte scanner aware only of strings, escapes and
// brackets, so memory is bounded by the largest item, not the list.
// BenchmarkScan against BenchmarkJSONUnmarshalList measures the difference
// in time and bytes per list (go test -run '^$' -bench . -benchmem
// -benchtime 20x ./rest/internal/listscan/), and rest's BenchmarkList and
// BenchmarkListScanOnly the whole path over loopback HTTP (figures in
// docs/performance.md). FuzzScan checks it against encoding/json.
//
// Files:
//
//	scan.go      Scan and ScanTyped, the errors and MaxItemSize, the scanner itself
//	protobuf.go  ScanProtobuf: the same for a list in the Kubernetes protobuf
//	             encoding (fuzzed: FuzzScanProtobuf)
package listscan
