package fakeapiserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// A server with one ConfigMap, listed and then watched over plain HTTP.
func Example() {
	s := fakeapiserver.New(fakeapiserver.Options{Seed: 1})
	if err := s.Start(); err != nil {
		panic(err)
	}
	defer s.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"color":"blue"}}`
	resp, err := client.Post(s.URL()+"/api/v1/namespaces/default/configmaps", "application/json", strings.NewReader(cm))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("create:", resp.Status)

	// A watch from "now" on, with bookmarks: first the existing objects,
	// then the bookmark that ends the initial events.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true", nil)
	resp, err = client.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	for range 2 {
		line, err := lines.ReadString('\n')
		if err != nil && err != io.EOF {
			panic(err)
		}
		fmt.Println(line[:strings.Index(line, `,"object"`)] + "}")
	}
	// Output:
	// create: 201 Created
	// {"type":"ADDED"}
	// {"type":"BOOKMARK"}
}
