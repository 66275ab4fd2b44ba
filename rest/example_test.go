package rest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/rest"
)

// Pod declares only the fields this program reads.
type Pod struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
}

// Example lists pods, watches them and reads one error, against a tiny
// stand-in for the API server.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/namespaces/default/pods" && r.URL.Query().Get("watch") == "true":
			io.WriteString(w, `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-2","namespace":"default","resourceVersion":"8"}}}`+"\n")
			io.WriteString(w, `{"type":"DELETED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","resourceVersion":"9"}}}`+"\n")
		case r.URL.Path == "/api/v1/namespaces/default/pods":
			io.WriteString(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[`+
				`{"metadata":{"name":"web-1","namespace":"default"},"spec":{"nodeName":"node-a"}}]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"pods \"nope\" not found"}`)
		}
	}))
	defer srv.Close()

	c, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()
	ctx := context.Background()

	// List: the items are decoded one by one as the body streams in.
	pods, err := rest.ListAs[*Pod](ctx, c.Get().Namespace("default").Resource("pods"))
	if err != nil {
		panic(err)
	}
	for _, p := range pods.Items {
		fmt.Printf("%s %s on %s at rv %s\n", p.Kind, p.Name, p.Spec.NodeName, pods.ResourceVersion)
	}

	// Watch from the list's resourceVersion.
	w, err := rest.WatchAs[*Pod](ctx, c.Get().Namespace("default").Resource("pods").Param("resourceVersion", pods.ResourceVersion))
	if err != nil {
		panic(err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		fmt.Println(ev.Type, ev.Object.Name, ev.Object.ResourceVersion)
	}

	// Errors are classified by code and reason.
	err = c.Get().Namespace("default").Resource("pods").Name("nope").Do(ctx).Error()
	fmt.Println(rest.IsNotFound(err), err)

	// Output:
	// Pod web-1 on node-a at rv 7
	// ADDED web-2 8
	// DELETED web-1 9
	// true get pods "nope": 404 NotFound: pods "nope" not found
}
