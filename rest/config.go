package rest

import (
	"log/slog"
	"time"

	"github.com/kubecache/kubecache/clock"
)

// Config says how to reach one API server and who to be there. It comes
// from LoadKubeconfig, from InClusterConfig, or is filled in by hand (a test
// pointing at an httptest server needs only Host and TLS).
//
// A Config is read by NewClient and not retained: changing it afterwards does
// not affect a Client already built.
type Config struct {
	// Host is the server's base URL, "https://host:port" (a path prefix is
	// allowed: "https://proxy/k8s/clusters/c1").
	Host string

	// Namespace is the namespace of the kubeconfig context, or of the pod
	// for an in-cluster config; "" when none was set. The client does not
	// use it by itself: requests name their namespace.
	Namespace string

	// TLS holds the server's CA, the client certificate and TLS options.
	TLS TLSConfig

	// BearerToken is sent as "Authorization: Bearer <token>".
	BearerToken string
	// BearerTokenFile is a file holding the token. It is read on first use
	// and re-read at most every TokenFileRefresh (and after a 401), so a
	// rotated token is picked up. It takes precedence over BearerToken.
	BearerTokenFile string
	// TokenFileRefresh is how long a token read from BearerTokenFile is
	// trusted before the file is read again; 0 means one minute.
	TokenFileRefresh time.Duration

	// Username and Password select HTTP basic authentication. kube-apiserver
	// no longer accepts it; it is kept for proxies and other servers.
	Username string
	Password string

	// Exec runs a credential plugin to obtain a token or a client
	// certificate. See ExecConfig.
	Exec *ExecConfig

	// Impersonate, when its UserName is set, makes every request act as
	// another user (the Impersonate-* headers).
	Impersonate ImpersonationConfig

	// ProxyURL routes the connection through a proxy: "http://", "https://"
	// or "socks5://". Empty means the environment's proxy settings
	// (HTTPS_PROXY, NO_PROXY...).
	ProxyURL string

	// DisableCompression turns off the transparent gzip the client asks
	// for (and decodes) when a request names no Accept-Encoding.
	DisableCompression bool

	// UserAgent overrides the default "kubecache/<version> (<os>/<arch>)".
	UserAgent string

	// QPS and Burst shape the client-side token bucket every request passes:
	// Burst requests at once, then QPS per second. QPS 0 means the default
	// (50, burst 100: a 50,000-object list paged by 500 is not slowed); a
	// negative QPS disables rate limiting.
	QPS   float64
	Burst int

	// Timeout bounds each request made with Do, and how long a List may
	// go without hearing from the server: before its response headers,
	// and between two reads of its body (a long list that keeps arriving
	// is not cut). Watch and Stream have their own deadlines. 0 means
	// DefaultTimeout (32 s); a negative value means no limit beyond the
	// caller's context.
	Timeout time.Duration

	// MaxListBytes and MaxListItems bound one list response (one page):
	// a server that sends more fails the List with ErrResponseTooLarge
	// instead of growing the caller's memory without end. 0 means
	// DefaultMaxListBytes (2 GiB) and DefaultMaxListItems (1,000,000).
	// MaxResponseBytes bounds a response Do reads whole; 0 means
	// DefaultMaxResponseBytes (128 MiB). Negative values are refused by
	// NewClient.
	MaxListBytes     int64
	MaxListItems     int
	MaxResponseBytes int64

	// MaxWatchFrameBytes bounds one watch event on the wire: a larger frame
	// ends the watch with watch.ErrFrameTooLarge instead of growing memory.
	// 0 means watch.DefaultMaxFrameSize; lower it for a memory-limited
	// controller. Negative values are refused by NewClient.
	MaxWatchFrameBytes int

	// HTTP2ReadIdleTimeout is how long an HTTP/2 connection may stay silent
	// before the client pings it; PingTimeout is how long it then waits for
	// the answer before closing a dead connection. 0 means 30 s and 15 s; a
	// negative ReadIdleTimeout turns the health check off.
	HTTP2ReadIdleTimeout time.Duration
	HTTP2PingTimeout     time.Duration

	// Logger receives debug records of requests and warnings (a token file
	// that became unreadable). nil means silent. No credential is ever
	// logged.
	Logger *slog.Logger

	// Clock is the source of time for token-file refresh, credential expiry
	// and rate limiting; nil means the system clock. Tests inject a fake.
	Clock clock.Clock
}

// TLSConfig is the TLS side of a Config. File and data forms may be mixed;
// a data field wins over the file of the same item.
type TLSConfig struct {
	// Insecure skips verification of the server's certificate. Never use it
	// outside tests.
	Insecure bool
	// ServerName is the name checked against the server's certificate (and
	// sent as SNI) when it differs from Host.
	ServerName string

	// CAFile and CAData hold PEM certificates trusted to sign the server's
	// certificate. When both are empty the system pool is used.
	CAFile string
	CAData []byte

	// CertFile/KeyFile and CertData/KeyData hold the PEM client certificate
	// and its key.
	CertFile string
	KeyFile  string
	CertData []byte
	KeyData  []byte
}

// ImpersonationConfig names the user, groups, UID and extra attributes a
// request acts as (kubeconfig's as, as-groups, as-uid, as-user-extra).
type ImpersonationConfig struct {
	UserName string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

// Defaults for the fields of Config left zero.
const (
	DefaultQPS              = 50
	DefaultBurst            = 100
	DefaultTokenFileRefresh = time.Minute
	defaultReadIdleTimeout  = 30 * time.Second
	defaultPingTimeout      = 15 * time.Second
)
