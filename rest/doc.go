// Package rest is kubecache's client for the Kubernetes API server over
// plain HTTP: configuration, transport, a request builder, streaming lists,
// watches and API errors. It depends on nothing from client-go.
//
// In the flow of one event it is the first step after the socket:
//
//	API server ──HTTP (chunked) or websocket──► rest (Request.Watch / List)
//	    ──► watch (frames → Events) ──► reflector ──► cache ──► informer
//
// A program loads a Config (LoadKubeconfig, InClusterConfig, or by hand),
// builds one Client with NewClient, and sends requests built like
//
//	c.Get().Namespace("default").Resource("pods").Name("web").Do(ctx).Into(&pod)
//
// Collections are read with List (raw items streamed one by one, never the
// whole body in memory) or ListAs[T], and watched with Watch
// (meta.Unstructured events), WatchAs[T] or WatchDecoded (any decode
// function; the reflector's path), over chunked HTTP or, after
// Request.Transport(WatchOverWebsocket), a websocket. Client.Discover reads what the server
// serves and Discovery.Resolve turns "deploy" into deployments.apps/v1.
//
// Non-2xx answers are *StatusError values wrapping the server's
// meta.Status, classified with IsNotFound, IsGone, IsConflict,
// IsTooManyRequests and the other Is functions.
//
// Where each piece lives:
//
//	config.go      Config, TLSConfig, ImpersonationConfig, defaults
//	config_redact.go  a Config printed (%v, %+v, %#v) or encoded as JSON
//	               with its credentials redacted
//	kubeconfig.go  LoadKubeconfig: kubeconfig files, merging, contexts
//	incluster.go   InClusterConfig: the service account of a pod
//	exec.go        exec credential plugins (off the learner's path)
//	transport.go   TLS configuration and the HTTP/1.1+HTTP/2 transport
//	gzip.go        gzip asked for and decoded member by member (a streaming
//	               list's last event is not held back until the next one)
//	auth.go        bearer tokens (static, file, exec), basic auth,
//	               impersonation headers, User-Agent, request logging
//	ratelimit.go   the client-side token bucket (QPS, Burst)
//	bounds.go      what a server may make the client wait for or hold:
//	               the request timeout, the silence a list may keep, the
//	               bytes and items of a list, the bytes of a response
//	client.go      Client, NewClient, Getter, PatchType
//	request.go     Request: the builder and the URL it makes
//	result.go      Do and Result (Into, Raw, StatusCode, Error)
//	list.go        List and ListAs: a list response streamed item by item
//	watch.go       WatchTransport; Watch, WatchAs, WatchDecoded and Stream
//	wire.go        Wire: JSON or protobuf responses; ListWire, WatchDecodedWire
//	watch_protobuf.go  the protobuf watch stream's frames (length-prefixed WatchEvents)
//	websocket.go   the websocket transport for watches
//	               (fuzzed: websocket_fuzz_test.go; plugin output:
//	               exec_fuzz_test.go)
//	errors.go      StatusError and the Is functions
//	discovery.go   Discover, Resolve, ForKind (off the learner's path)
//	internal/listscan  the streaming scanner of a list envelope
package rest
