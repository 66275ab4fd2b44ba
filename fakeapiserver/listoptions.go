package fakeapiserver

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/selector"
)

// listOptions are the query parameters of a list or watch, parsed and
// validated as the real server does (apimachinery's ListOptions rules).
type listOptions struct {
	labels         selector.Labels
	fields         selector.Fields
	rv             string
	match          string
	limit          int64
	cont           string
	timeoutSeconds *int64
	allowBookmarks bool
	// sendInitialEvents is nil when the parameter is absent.
	sendInitialEvents *bool
}

const (
	matchExact        = "Exact"
	matchNotOlderThan = "NotOlderThan"
)

// parseListOptions reads and validates the options. isWatch selects the
// watch rules, including the 1.37 default that turns a watch from "" or
// "0" into a streaming list; watchList says the WatchList feature is on.
func parseListOptions(r *http.Request, res *registry.Resource, name string, isWatch, watchList bool) (listOptions, error) {
	q := r.URL.Query()
	var o listOptions
	var err error
	if o.labels, err = selector.ParseLabels(q.Get("labelSelector")); err != nil {
		return o, apistatus.BadRequest(err.Error())
	}
	if o.fields, err = selector.ParseFields(q.Get("fieldSelector")); err != nil {
		return o, apistatus.BadRequest(err.Error())
	}
	o.rv = q.Get("resourceVersion")
	if isWatch {
		// The real server lets this storage error through as a 500; the
		// fake server never answers 500 to what a client sent, so it
		// refuses the parameter as a list does (docs/fidelity.md).
		if _, err := parseRV(o.rv); err != nil {
			return o, apistatus.BadRequest(fmt.Sprintf("invalid resource version: resourceVersion: Invalid value: %q: %v", o.rv, err))
		}
	}
	o.match = q.Get("resourceVersionMatch")
	o.cont = q.Get("continue")
	if v := q.Get("limit"); v != "" {
		if o.limit, err = strconv.ParseInt(v, 10, 64); err != nil {
			return o, apistatus.BadRequest(err.Error())
		}
		if o.limit < 0 {
			o.limit = 0
		}
	}
	if v := q.Get("timeoutSeconds"); v != "" {
		t, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, apistatus.BadRequest(err.Error())
		}
		o.timeoutSeconds = &t
	}
	if vs, ok := q["allowWatchBookmarks"]; ok {
		o.allowBookmarks = queryBool(vs)
	}
	if vs, ok := q["sendInitialEvents"]; ok {
		b := queryBool(vs)
		o.sendInitialEvents = &b
	}

	if isWatch && watchList && o.sendInitialEvents == nil && o.match == "" && (o.rv == "" || o.rv == "0") {
		t := true
		o.sendInitialEvents = &t
		o.match = matchNotOlderThan
	}
	if errs := o.validate(isWatch, watchList); len(errs) > 0 {
		return o, apistatus.InvalidListOptions(errs)
	}

	for _, req := range o.fields.Requirements() {
		if !res.FieldAllowed(req.Field) {
			return o, apistatus.BadRequest(res.FieldErrorMessage(req.Field))
		}
	}
	if name != "" {
		if !o.fields.Empty() {
			if v, ok := o.fields.RequiresExactMatch("metadata.name"); !ok || v != name {
				return o, apistatus.BadRequest("fieldSelector metadata.name doesn't match requested name")
			}
		} else if o.fields, err = selector.ParseFields("metadata.name=" + selector.EscapeFieldValue(name)); err != nil {
			return o, apistatus.BadRequest(err.Error())
		}
	}
	return o, nil
}

// queryBool reads a boolean query parameter as the real server does: only
// "0" and "false" (any case) are false; any other value, even empty, is
// true.
func queryBool(vs []string) bool {
	if len(vs) == 0 {
		return false
	}
	return vs[0] != "0" && !strings.EqualFold(vs[0], "false")
}

func (o listOptions) validate(isWatch, watchList bool) []apistatus.FieldError {
	var errs []apistatus.FieldError
	if isWatch {
		if o.sendInitialEvents != nil && o.match != matchNotOlderThan {
			errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if o.sendInitialEvents != nil && !watchList {
			errs = append(errs, apistatus.FieldForbidden("sendInitialEvents", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"))
		}
		if o.match != "" {
			if o.sendInitialEvents == nil {
				errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if o.match != matchNotOlderThan {
				errs = append(errs, apistatus.FieldNotSupported("resourceVersionMatch", o.match, matchNotOlderThan))
			}
			if o.cont != "" {
				errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
			}
		}
		return errs
	}
	if o.match != "" {
		if o.rv == "" {
			errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if o.cont != "" {
			errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
		}
		if o.match != matchExact && o.match != matchNotOlderThan {
			errs = append(errs, apistatus.FieldNotSupported("resourceVersionMatch", o.match, matchExact, matchNotOlderThan, ""))
		}
		if o.match == matchExact && o.rv == "0" {
			errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""))
		}
	}
	if o.sendInitialEvents != nil {
		errs = append(errs, apistatus.FieldForbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
	}
	return errs
}

// parseRV parses a resourceVersion parameter ("" and "0" are 0).
func parseRV(rv string) (int64, error) {
	if rv == "" || rv == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 63)
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}

// matches reports whether an object passes the namespace and selectors.
func (o listOptions) matches(obj *storage.Object, namespace string) bool {
	if namespace != "" && obj.Meta.Namespace != namespace {
		return false
	}
	if !o.labels.Empty() && !o.labels.Matches(obj.Meta.Labels) {
		return false
	}
	return o.fields.Empty() || o.fields.Matches(obj.Field)
}

// filtered reports whether selectors are in use (remainingItemCount is then
// left out).
func (o listOptions) filtered() bool {
	return !o.labels.Empty() || !o.fields.Empty()
}
