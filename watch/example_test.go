package watch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// ConfigMap is a user type: it embeds TypeMeta and ObjectMeta and names
// only the fields it needs.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// Example reads a watch stream as a server sends it: one JSON event per
// line, here ending with the ERROR that tells the client to list again.
func Example() {
	body := io.NopCloser(strings.NewReader(`{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","namespace":"default","resourceVersion":"101"},"data":{"color":"blue"}}}
{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","namespace":"default","resourceVersion":"102"},"data":{"color":"green"}}}
{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"150"}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 150 (300)","reason":"Expired","code":410}}
`))
	decode := func(b []byte) (*ConfigMap, error) {
		cm := new(ConfigMap)
		return cm, json.Unmarshal(b, cm)
	}
	w := watch.NewStreamWatcher(context.Background(), body, decode, watch.DecoderOptions{})
	defer w.Stop()
	for ev := range w.ResultChan() {
		switch ev.Type {
		case watch.Error:
			fmt.Printf("%s %v (list again: %t)\n", ev.Type, ev.Status, ev.Status.IsGone())
		case watch.Bookmark:
			fmt.Printf("%s at resourceVersion %s\n", ev.Type, ev.Object.ResourceVersion)
		default:
			fmt.Printf("%s %s color=%s rv=%s\n", ev.Type, meta.Key(ev.Object), ev.Object.Data["color"], ev.Object.ResourceVersion)
		}
	}
	// Output:
	// ADDED default/app color=blue rv=101
	// MODIFIED default/app color=green rv=102
	// BOOKMARK at resourceVersion 150
	// ERROR 410 Expired: too old resource version: 150 (300) (list again: true)
}

// ExampleDecoder frames a stream without decoding objects: the object stays
// raw JSON, and frames need not be on separate lines.
func ExampleDecoder() {
	stream := `{"type":"ADDED","object":{"metadata":{"name":"a"}}}{"object":{"metadata":{"name":"b"}},"type":"DELETED"}`
	d := watch.NewDecoder(strings.NewReader(stream), watch.DecoderOptions{})
	for {
		f, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s at byte %d: %s\n", f.Type, f.Offset, f.Object)
	}
	// Output:
	// ADDED at byte 0: {"metadata":{"name":"a"}}
	// DELETED at byte 51: {"metadata":{"name":"b"}}
}
