package fakeapiserver

import (
	"cmp"
	"log/slog"
	"time"
)

// Options configure a Server. The zero value is a plain HTTP server on
// 127.0.0.1 with the real server's default timers, the wall clock, random
// UIDs and no authentication.
type Options struct {
	// Addr is the listen address for Start; default "127.0.0.1:0".
	Addr string

	// Clock drives every timer of the server; default RealClock.
	Clock Clock

	// Seed, when non-zero, makes UIDs, generateName suffixes and the
	// default watch timeout's jitter deterministic.
	Seed uint64

	// BookmarkInterval is how often a watch with allowWatchBookmarks=true
	// gets a BOOKMARK (only when the resourceVersion has moved past what
	// the watch last saw); default 1 minute, as on the real server.
	BookmarkInterval time.Duration
	// BookmarkBeforeDeadline is how long before a watch's deadline the
	// last BOOKMARK goes out; default 2 s.
	BookmarkBeforeDeadline time.Duration
	// MinRequestTimeout sets the deadline of a watch without
	// timeoutSeconds: a duration in [MinRequestTimeout, 2*MinRequestTimeout)
	// chosen at random; default 30 minutes (kube-apiserver's 1800 s).
	MinRequestTimeout time.Duration
	// RequestTimeout bounds every request that is not long-running
	// (watches and the streaming subresources are): its context ends,
	// reading its body fails with the real server's 504, and a shorter
	// ?timeout= wins. Default 60 s, kube-apiserver's --request-timeout.
	RequestTimeout time.Duration

	// ReadHeaderTimeout bounds reading a request's headers and IdleTimeout
	// how long a keep-alive connection may wait for its next request;
	// defaults 32 s and 90 s, the real server's. Connections that never
	// finish their headers, or stay idle, are closed after them.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight bound the reads
	// and the writes served at once (watches and other long-running
	// requests are not counted); past them a request gets 429 with
	// Retry-After: 1 at once. Defaults 400 and 200, kube-apiserver's
	// --max-requests-inflight and --max-mutating-requests-inflight;
	// negative means unlimited.
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int

	// HistoryLimit is how many changes the server keeps for resuming
	// watches and reading older snapshots; older ones are compacted away.
	// Default 10000. A negative value keeps no history beyond the current
	// state.
	HistoryLimit int
	// HistoryBytes bounds the history in bytes as well (the objects of
	// the changes kept): default 256 MiB, an eighth of etcd's 2 GiB
	// quota; past it the oldest changes are compacted, and a watch from
	// before them gets 410. Negative: no bound in bytes.
	HistoryBytes int64
	// CompactionInterval compacts, on every tick, everything older than
	// the previous tick (etcd's periodic compaction); default 5 minutes,
	// negative disables.
	CompactionInterval time.Duration
	// ContinueTokenTTL expires continue tokens older than this (410 with
	// an inconsistent continue token) even if their snapshot still exists;
	// zero means tokens expire only through compaction.
	ContinueTokenTTL time.Duration
	// TooLargeResourceVersionWait is how long a request with a
	// resourceVersion newer than the server's waits for the server to catch
	// up before answering 504; default 3 s.
	TooLargeResourceVersionWait time.Duration

	// WatchQueueLength is how many events may wait for one watcher; a
	// watcher whose queue is full is closed (the real server drops slow
	// watchers too). Default 1000.
	WatchQueueLength int
	// WatchWriteTimeout bounds one write to a watch stream; a client that
	// stops reading is cut off after it. Default 1 minute.
	WatchWriteTimeout time.Duration

	// MaxRequestBodyBytes refuses larger bodies with 413; default 3 MiB as
	// on the real server.
	MaxRequestBodyBytes int64

	// NoGarbageCollector and NoNamespaceController switch off the two
	// controllers the server runs that a real cluster runs in
	// kube-controller-manager, so the server behaves as a real API server
	// alone does: with NoGarbageCollector the dependents of a deleted
	// owner stay, and an object deleted with propagationPolicy Foreground
	// or Orphan keeps its finalizer and waits; with
	// NoNamespaceController a deleted namespace stays Terminating with its
	// contents. Both are off by default: the server collects garbage and
	// empties deleted namespaces.
	NoGarbageCollector    bool
	NoNamespaceController bool

	// NoDefaultObjects skips creating the default namespaces and the
	// kubernetes Service.
	NoDefaultObjects bool
	// ServiceCIDR is the IPv4 range Services get their cluster IPs from,
	// as kube-apiserver's --service-cluster-ip-range ("10.96.0.0/28");
	// empty is 10.96.0.0/16, the e2e real server's. New panics on one
	// that does not parse.
	ServiceCIDR string
	// BootstrapRBAC also creates what a fresh real server serves besides
	// its namespaces, kubernetes Service and ServiceCIDR and priority
	// classes: the 73 bootstrap cluster roles, 54 cluster role bindings,
	// 7 roles and 7 role bindings, and the flow-control priority levels
	// and flow schemas. It costs tens of milliseconds per server, so it
	// is off by default.
	BootstrapRBAC bool

	// Logger receives one line per request (method, path, status,
	// duration, injected faults). Nil discards.
	Logger *slog.Logger

	// Admin serves the fault-injection endpoint under /kubecache-admin/.
	// With authentication on, it needs AdminToken as a bearer token.
	Admin      bool
	AdminToken string

	// TLS serves HTTPS with a generated CA (embedded in Kubeconfig).
	TLS bool
	// Tokens turns on authentication: each bearer token maps to the user
	// it authenticates. Kubeconfig uses the first token in sorted order.
	Tokens map[string]User
	// ClientCertificates (with TLS) turns on authentication by client
	// certificate: certificates signed by the server's CA are accepted
	// (user = common name, groups = organizations), and Kubeconfig
	// carries one for ClientUser.
	ClientCertificates bool
	// Forbid denies matching requests with 403.
	Forbid []ForbidRule
	// Impersonate names who may act as another user with the
	// Impersonate-* headers besides members of system:masters; anyone
	// else is answered 403 (users "bob" is forbidden: User "alice" cannot
	// impersonate resource "users"...), as on a real cluster without an
	// RBAC rule for the impersonate verb. A Forbid rule on the verb
	// impersonate still wins.
	Impersonate []ImpersonateRule
	// MaxWatchersPerUser bounds the open watches of one client (the
	// authenticated user, or the remote address without authentication);
	// past it a watch is answered 429 with Retry-After, as the real
	// server's max-in-flight filter does. 0 means unlimited.
	MaxWatchersPerUser int

	// ShardedListAndWatch turns on the shardSelector parameter of lists
	// and watches, as the real server's ShardedListAndWatch feature gate
	// (alpha in 1.36, off by default) does: only objects whose uid or
	// namespace hashes into the selector's ranges are listed and watched,
	// and a list carries metadata.shardInfo. Off, the parameter is
	// ignored.
	ShardedListAndWatch bool

	// PodLogs, when set, answers pods/log as a kubelet would: the log of
	// a container of a pod that exists ("" is the pod's only or first
	// container), as text; ok false falls back to the answer of a server
	// whose kubelet does not listen. The simulated nodes of a cluster in
	// a box plug in here.
	PodLogs func(namespace, pod, container string) (log []byte, ok bool)

	// NoNodeTaint leaves out the node.kubernetes.io/not-ready:NoSchedule
	// taint the real server's TaintNodesByCondition admission gives every
	// new Node. On a real cluster the node lifecycle controller removes
	// it once the Node reports Ready; a caller that runs no such
	// controller but schedules pods onto its Nodes sets this.
	NoNodeTaint bool

	// Deviations from the real server, for testing clients against
	// servers that behave differently.

	// DisableWatchList behaves like a server with the WatchList feature
	// gate off: sendInitialEvents is refused (422) and a watch from ""
	// or "0" is not turned into a streaming list (its initial ADDED
	// events end without a bookmark).
	DisableWatchList bool
	// WithholdInitialEventsEnd accepts streaming lists but never sends
	// the k8s.io/initial-events-end bookmark: the server that leaves
	// informers unsynced forever.
	WithholdInitialEventsEnd bool
	// IgnoreLimit answers every list in one page whatever limit says, as
	// some aggregated API servers do.
	IgnoreLimit bool
	// NoOpenAPIV3 serves no /openapi/v3 (404 there and below it), as a
	// server from before OpenAPI v3 did: kubectl then validates and
	// explains from /openapi/v2, in protobuf.
	NoOpenAPIV3 bool
}

// withDefaults fills in zero fields.
func (o Options) withDefaults() Options {
	o.Addr = cmp.Or(o.Addr, "127.0.0.1:0")
	if o.Clock == nil {
		o.Clock = RealClock{}
	}
	o.BookmarkInterval = cmp.Or(o.BookmarkInterval, time.Minute)
	o.BookmarkBeforeDeadline = cmp.Or(o.BookmarkBeforeDeadline, 2*time.Second)
	o.MinRequestTimeout = cmp.Or(o.MinRequestTimeout, 30*time.Minute)
	o.RequestTimeout = cmp.Or(o.RequestTimeout, time.Minute)
	o.ReadHeaderTimeout = cmp.Or(o.ReadHeaderTimeout, 32*time.Second)
	o.IdleTimeout = cmp.Or(o.IdleTimeout, 90*time.Second)
	o.MaxRequestsInFlight = cmp.Or(o.MaxRequestsInFlight, 400)
	o.MaxMutatingRequestsInFlight = cmp.Or(o.MaxMutatingRequestsInFlight, 200)
	o.HistoryLimit = cmp.Or(o.HistoryLimit, 10000)
	o.CompactionInterval = cmp.Or(o.CompactionInterval, 5*time.Minute)
	o.TooLargeResourceVersionWait = cmp.Or(o.TooLargeResourceVersionWait, 3*time.Second)
	o.WatchQueueLength = cmp.Or(o.WatchQueueLength, 1000)
	o.WatchWriteTimeout = cmp.Or(o.WatchWriteTimeout, time.Minute)
	o.MaxRequestBodyBytes = cmp.Or(o.MaxRequestBodyBytes, 3<<20)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
