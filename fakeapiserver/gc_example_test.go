package fakeapiserver_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver"
)

// call sends one request and returns the status code and the decoded
// JSON body.
func call(client *http.Client, method, url, contentType, body string) (int, map[string]any) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return resp.StatusCode, out
}

// startForExample starts a server and a client of its own; stop closes
// both.
func startForExample() (*fakeapiserver.Server, *http.Client, func()) {
	s := fakeapiserver.New(fakeapiserver.Options{Seed: 1})
	if err := s.Start(); err != nil {
		panic(err)
	}
	client := &http.Client{Transport: &http.Transport{}}
	return s, client, func() {
		client.CloseIdleConnections()
		s.Close()
	}
}

// Deleting an owner deletes its dependents: here a ConfigMap owned by
// another, collected once its owner is gone (Background propagation).
func Example_garbageCollection() {
	s, client, stop := startForExample()
	defer stop()
	cms := s.URL() + "/api/v1/namespaces/default/configmaps"

	_, owner := call(client, http.MethodPost, cms, "application/json", `{"metadata":{"name":"owner"}}`)
	uid := owner["metadata"].(map[string]any)["uid"].(string)
	dep := fmt.Sprintf(`{"metadata":{"name":"dependent","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":%q}]}}`, uid)
	code, _ := call(client, http.MethodPost, cms, "application/json", dep)
	fmt.Println("create dependent:", code)

	code, _ = call(client, http.MethodDelete, cms+"/owner", "application/json", `{"propagationPolicy":"Background"}`)
	fmt.Println("delete owner:", code)
	code, _ = call(client, http.MethodGet, cms+"/dependent", "", "")
	fmt.Println("get dependent:", code)
	// Output:
	// create dependent: 201
	// delete owner: 200
	// get dependent: 404
}

// The scale subresource reads and writes a Deployment's replicas as an
// autoscaling/v1 Scale.
func Example_scale() {
	s, client, stop := startForExample()
	defer stop()
	deploys := s.URL() + "/apis/apps/v1/namespaces/default/deployments"

	call(client, http.MethodPost, deploys, "application/json", `{"metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	_, scale := call(client, http.MethodPatch, deploys+"/web/scale", "application/merge-patch+json", `{"spec":{"replicas":5}}`)
	fmt.Println(scale["kind"], scale["spec"], scale["status"])
	_, d := call(client, http.MethodGet, deploys+"/web", "", "")
	fmt.Println("deployment replicas:", d["spec"].(map[string]any)["replicas"], "generation:", d["metadata"].(map[string]any)["generation"])
	// Output:
	// Scale map[replicas:5] map[replicas:0 selector:app=web]
	// deployment replicas: 5 generation: 2
}
