package request

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

// ListOptions are the query parameters of a list or watch, parsed and
// validated as the real server does (apimachinery's ListOptions rules).
type ListOptions struct {
	labels selector.Labels
	fields selector.Fields
	// fieldLabels maps a selector's field to the stored field it reads
	// (registry.Resource.FieldLabels).
	fieldLabels    map[string]string
	RV             string
	Match          string
	Limit          int64
	Continue       string
	TimeoutSeconds *int64
	AllowBookmarks bool
	// SendInitialEvents is nil when the parameter is absent.
	SendInitialEvents *bool
	// Shard, when set, keeps only the objects of a shardSelector; the
	// server sets it when its ShardedListAndWatch option is on.
	Shard *Shard
}

// The resourceVersionMatch values.
const (
	MatchExact        = "Exact"
	MatchNotOlderThan = "NotOlderThan"
)

// ParseListOptions reads and validates the options. isWatch selects the
// watch rules, including the 1.37 default that turns a watch from "" or
// "0" into a streaming list; watchList says the WatchList feature is on.
func ParseListOptions(r *http.Request, res *registry.Resource, name string, isWatch, watchList bool) (ListOptions, error) {
	q := r.URL.Query()
	var o ListOptions
	var err error
	if o.labels, err = selector.ParseLabels(q.Get("labelSelector")); err != nil {
		return o, apistatus.BadRequest(err.Error())
	}
	if o.fields, err = selector.ParseFields(q.Get("fieldSelector")); err != nil {
		return o, apistatus.BadRequest(err.Error())
	}
	o.fieldLabels = res.FieldLabels
	o.RV = q.Get("resourceVersion")
	if isWatch {
		// The real server lets this storage error through as a 500; the
		// fake server never answers 500 to what a client sent, so it
		// refuses the parameter as a list does (docs/fidelity.md).
		if _, err := ParseRV(o.RV); err != nil {
			return o, apistatus.BadRequest(fmt.Sprintf("invalid resource version: resourceVersion: Invalid value: %q: %v", o.RV, err))
		}
	}
	o.Match = q.Get("resourceVersionMatch")
	o.Continue = q.Get("continue")
	if v := q.Get("limit"); v != "" {
		if o.Limit, err = strconv.ParseInt(v, 10, 64); err != nil {
			return o, apistatus.BadRequest(err.Error())
		}
		if o.Limit < 0 {
			o.Limit = 0
		}
	}
	if v := q.Get("timeoutSeconds"); v != "" {
		t, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return o, apistatus.BadRequest(err.Error())
		}
		o.TimeoutSeconds = &t
	}
	if vs, ok := q["allowWatchBookmarks"]; ok {
		o.AllowBookmarks = queryBool(vs)
	}
	if vs, ok := q["sendInitialEvents"]; ok {
		b := queryBool(vs)
		o.SendInitialEvents = &b
	}

	if isWatch && watchList && o.SendInitialEvents == nil && o.Match == "" && (o.RV == "" || o.RV == "0") {
		t := true
		o.SendInitialEvents = &t
		o.Match = MatchNotOlderThan
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

func (o ListOptions) validate(isWatch, watchList bool) []apistatus.FieldError {
	var errs []apistatus.FieldError
	if isWatch {
		if o.SendInitialEvents != nil && o.Match != MatchNotOlderThan {
			errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if o.SendInitialEvents != nil && !watchList {
			errs = append(errs, apistatus.FieldForbidden("sendInitialEvents", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"))
		}
		if o.Match != "" {
			if o.SendInitialEvents == nil {
				errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if o.Match != MatchNotOlderThan {
				errs = append(errs, apistatus.FieldNotSupported("resourceVersionMatch", o.Match, MatchNotOlderThan))
			}
			if o.Continue != "" {
				errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
			}
		}
		return errs
	}
	if o.Match != "" {
		if o.RV == "" {
			errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if o.Continue != "" {
			errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
		}
		if o.Match != MatchExact && o.Match != MatchNotOlderThan {
			errs = append(errs, apistatus.FieldNotSupported("resourceVersionMatch", o.Match, MatchExact, MatchNotOlderThan, ""))
		}
		if o.Match == MatchExact && o.RV == "0" {
			errs = append(errs, apistatus.FieldForbidden("resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""))
		}
	}
	if o.SendInitialEvents != nil {
		errs = append(errs, apistatus.FieldForbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
	}
	return errs
}

// ParseRV parses a resourceVersion parameter ("" and "0" are 0).
func ParseRV(rv string) (int64, error) {
	if rv == "" || rv == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 63)
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}

// Matches reports whether an object passes the namespace and selectors.
func (o ListOptions) Matches(obj *storage.Object, namespace string) bool {
	if namespace != "" && obj.Meta.Namespace != namespace {
		return false
	}
	if !o.labels.Empty() && !o.labels.Matches(obj.Meta.Labels) {
		return false
	}
	if o.Shard != nil && !o.Shard.Matches(obj.Meta) {
		return false
	}
	if o.fields.Empty() {
		return true
	}
	if o.fieldLabels == nil {
		return o.fields.Matches(obj.Field)
	}
	return o.fields.Matches(func(field string) (string, bool) {
		if stored, ok := o.fieldLabels[field]; ok {
			field = stored
		}
		return obj.Field(field)
	})
}

// Filtered reports whether selectors are in use (remainingItemCount is then
// left out).
func (o ListOptions) Filtered() bool {
	return !o.labels.Empty() || !o.fields.Empty() || o.Shard != nil
}
