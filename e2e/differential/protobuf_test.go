package differential

import (
	"testing"

	"github.com/kubecache/kubecache/kubeproto"
)

const (
	protobufFirst = "application/vnd.kubernetes.protobuf, application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// withAccept returns req asking for its answer with the given Accept.
func withAccept(req Request, accept string) Request {
	h := map[string]string{"Accept": accept}
	for k, v := range req.Header {
		h[k] = v
	}
	req.Header = h
	return req
}

// protobufPost is a POST whose body is the protobuf of the JSON object js,
// as client-go's typed clients send it.
func protobufPost(t *testing.T, path, js string) Request {
	body, err := kubeproto.Encode([]byte(js))
	if err != nil {
		t.Fatalf("encode %s: %v", js, err)
	}
	return Request{Method: "POST", Path: path, Body: string(body), Header: map[string]string{"Content-Type": mediaProtobuf, "Accept": protobufFirst}}
}

// TestProtobuf asks both servers the same requests with protobuf Accept
// headers and protobuf bodies, and compares the objects the answers hold
// (the harness decodes protobuf answers, frames included).
func TestProtobuf(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-protobuf")
	c.Compare("create in protobuf", protobufPost(t, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"app":"x"}},"data":{"k":"v"},"binaryData":{"b":"AAH/"}}`))
	c.Compare("get in protobuf", withAccept(get(cms+"/a"), protobufFirst))
	c.Compare("list in protobuf", withAccept(get(cms), protobufFirst))
	c.Compare("paged list in protobuf", withAccept(get(cms+"?limit=1"), protobufFirst))
	c.Compare("metadata-only list in protobuf", withAccept(get(cms),
		"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"))
	c.Compare("metadata-only object in protobuf", withAccept(get(cms+"/a"),
		"application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"))
	c.Compare("NotFound in protobuf", withAccept(get(cms+"/missing"), protobufFirst))
	c.Compare("AlreadyExists in protobuf", protobufPost(t, cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`))
	c.Compare("garbage protobuf body", Request{Method: "POST", Path: cms, Body: "k8s\x00garbage", Header: map[string]string{"Content-Type": mediaProtobuf}})
	c.Compare("q-values prefer protobuf", withAccept(get(cms+"/a"), "application/json;q=0.5, application/vnd.kubernetes.protobuf;q=0.9"))
	c.CompareWatch("streaming list in protobuf",
		withAccept(Request{Path: cms + "?watch=1&timeoutSeconds=2&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"}, protobufFirst),
		[]Request{createCM("b")})
}
