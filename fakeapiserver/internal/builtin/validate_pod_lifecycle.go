package builtin

import (
	"regexp"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
)

// lifecycle checks a container's postStart and preStop hooks: each
// holds exactly one handler, and that handler's own rules. grace is the
// pod's termination grace period, which a sleep may not exceed; ok says
// whether the pod sets one. No stop signal reaches here: PrepareCreate
// and PrepareUpdate drop it, as the real server does (its feature gate
// is off in 1.37).
func (v *validator) lifecycle(path string, lc *jsonv.Value, grace int64, ok bool) {
	for _, hook := range []string{"postStart", "preStop"} {
		if h := present(lc, hook); h != nil {
			v.lifecycleHandler(path+"."+hook, h, grace, ok)
		}
	}
}

// lifecycleHandler checks one hook in the real validator's order of
// handler types; a second handler is forbidden and not checked further.
func (v *validator) lifecycleHandler(path string, h *jsonv.Value, grace int64, graceSet bool) {
	handlers := 0
	for _, kind := range []string{"exec", "httpGet", "tcpSocket", "sleep"} {
		a := present(h, kind)
		if a == nil {
			continue
		}
		p := path + "." + kind
		if handlers > 0 {
			v.forbidden(p, "may not specify more than 1 handler type")
			continue
		}
		handlers++
		switch kind {
		case "exec":
			if empty(a, "command") {
				v.required(p+".command", "")
			}
		case "httpGet":
			v.httpGetAction(p, a)
		case "tcpSocket":
			v.handlerPort(p+".port", a.Get("port"))
		case "sleep":
			n, _ := integer(a, "seconds")
			if graceSet && (n < 0 || n > grace) {
				v.invalidRaw(p, strconv.FormatInt(n, 10), "must be non-negative and less than terminationGracePeriodSeconds ("+strconv.FormatInt(grace, 10)+")")
			}
		}
	}
	if handlers == 0 {
		v.required(path, "must specify a handler type")
	}
}

// httpHeaderFmt is what an HTTP header name may hold.
const httpHeaderFmt = `[-A-Za-z0-9]+`

var httpHeaderRE = regexp.MustCompile("^" + httpHeaderFmt + "$")

// httpGetAction checks an HTTP handler of a probe or hook: a path, a
// port, the scheme HTTP or HTTPS and header names.
func (v *validator) httpGetAction(path string, a *jsonv.Value) {
	if str(a, "path") == "" {
		v.required(path+".path", "")
	}
	v.handlerPort(path+".port", a.Get("port"))
	switch s := str(a, "scheme"); s {
	case "HTTP", "HTTPS":
	default:
		v.notSupported(path+".scheme", s, "HTTP", "HTTPS")
	}
	for _, hdr := range items(a, "httpHeaders") {
		if name := str(hdr, "name"); !httpHeaderRE.MatchString(name) {
			v.invalid(path+".httpHeaders", name, validation.RegexMessage("a valid HTTP header must consist of alphanumeric characters or '-'", httpHeaderFmt, "X-Header-Name"))
		}
	}
}

// containerLifecycle checks the hooks of container c: a regular or
// restartable init container's are validated, another init container
// may not have any.
func (v *validator) containerLifecycle(p string, c, spec *jsonv.Value, initContainer bool) {
	lc := present(c, "lifecycle")
	if lc == nil {
		return
	}
	if initContainer && str(c, "restartPolicy") != "Always" {
		v.forbidden(p+".lifecycle", "may not be set for init containers without restartPolicy=Always")
		return
	}
	grace, ok := integer(spec, "terminationGracePeriodSeconds")
	v.lifecycle(p+".lifecycle", lc, grace, ok)
}
