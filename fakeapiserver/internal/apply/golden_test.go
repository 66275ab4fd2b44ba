package apply

import (
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/openapi"
)

type recordedStep struct {
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Type     string          `json:"type"`
	Query    string          `json:"query"`
	Body     json.RawMessage `json:"body"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
}

type recordedCase struct {
	Name  string         `json:"name"`
	Steps []recordedStep `json:"steps"`
}

func loadCases(t testing.TB) []recordedCase {
	raw, err := os.ReadFile("testdata/cases.golden.json")
	require.NoError(t, err)
	var cases []recordedCase
	require.NoError(t, json.Unmarshal(raw, &cases))
	return cases
}

// resourceInfo maps a recorded path to what the server knows about it.
type resourceInfo struct {
	apiVersion, kind, subresource string
	statusSubresource             bool
	typ                           Type
	object                        bool // the path names one object (or its collection, for POST)
}

var kinds = map[string]struct {
	kind   string
	status bool
}{
	"configmaps":  {"ConfigMap", false},
	"deployments": {"Deployment", true},
	"services":    {"Service", true},
	"gizmos":      {"Gizmo", false},
}

func infoOf(t *testing.T, path string) resourceInfo {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var gv string
	var rest []string
	if parts[0] == "api" {
		gv, rest = parts[1], parts[2:]
	} else {
		gv, rest = parts[1]+"/"+parts[2], parts[3:]
	}
	if len(rest) >= 2 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	info := resourceInfo{apiVersion: gv}
	k, ok := kinds[rest[0]]
	if !ok {
		return info
	}
	info.object = true
	info.kind, info.statusSubresource = k.kind, k.status
	if len(rest) == 3 {
		info.subresource = rest[2]
	}
	group, version, _ := strings.Cut(gv, "/")
	if version == "" {
		group, version = "", gv
	}
	if typ, ok := ForKind(openapi.Builtin(), openapi.GVK{Group: group, Version: version, Kind: k.kind}); ok {
		info.typ = typ
	}
	return info
}

// TestRecordedCases replays the applies and updates recorded against a
// real kube-apiserver: each write starts from the object the server held
// before it, and must give the server's managedFields (and, for applies,
// the server's object, what the server defaults aside) or fail as the
// server did.
func TestRecordedCases(t *testing.T) {
	cases := loadCases(t)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			live := jsonv.Value{Kind: jsonv.Null}
			for i, st := range c.Steps {
				info := infoOf(t, st.Path)
				if !info.object || st.Method == "GET" || st.Method == "DELETE" {
					continue
				}
				q, err := url.ParseQuery(st.Query)
				require.NoError(t, err)
				r := Request{
					Manager: q.Get("fieldManager"), APIVersion: info.apiVersion, Kind: info.kind,
					Subresource: info.subresource, StatusSubresource: info.statusSubresource,
					Force: q.Get("force") == "true", Now: responseTime(t, st.Response),
				}
				if st.Type == "apply" {
					replayApply(t, i, st, live, info, r)
				} else if st.Status < 300 {
					replayUpdate(t, i, st, live, info, r)
				}
				if st.Status < 300 {
					res, err := jsonv.Parse(st.Response)
					require.NoError(t, err)
					live = res.Value
				}
			}
		})
	}
}

func replayApply(t *testing.T, i int, st recordedStep, live jsonv.Value, info resourceInfo, r Request) {
	body := []byte(st.Body)
	var text string
	if json.Unmarshal(st.Body, &text) == nil {
		body = []byte(text)
	}
	got, err := Apply(live, body, info.typ, r)
	if st.Status >= 300 {
		var status struct {
			Message string
			Details struct {
				Causes []struct{ Reason, Message, Field string }
			}
		}
		require.NoError(t, json.Unmarshal(st.Response, &status))
		if strings.Contains(status.Message, "does not match the name on the URL") {
			return // the server's check, not apply's
		}
		require.Error(t, err, "step %d: Apply succeeded, the server answered %d %s", i, st.Status, status.Message)
		assert.Equal(t, status.Message, err.Error(), "step %d", i)
		if st.Status == 409 {
			var ce *ConflictError
			require.ErrorAs(t, err, &ce, "step %d", i)
			s := ce.Status()
			require.Len(t, s.Details.Causes, len(status.Details.Causes))
			for j, cause := range status.Details.Causes {
				assert.Equal(t, cause.Reason, string(s.Details.Causes[j].Type))
				assert.Equal(t, cause.Message, s.Details.Causes[j].Message)
				assert.Equal(t, cause.Field, s.Details.Causes[j].Field)
			}
			return
		}
		var ae *Error
		require.ErrorAs(t, err, &ae, "step %d", i)
		assert.Equal(t, st.Status, ae.Code, "step %d", i)
		return
	}
	require.NoError(t, err, "step %d: Apply(%s)", i, body)
	assertManagedFields(t, i, st.Response, got.ManagedFields)
	want := normalize(t, st.Response, got.Object)
	assert.JSONEq(t, string(jsonv.Marshal(want)), string(jsonv.Marshal(normalize(t, jsonv.Marshal(got.Object), got.Object))), "step %d: object", i)
}

func replayUpdate(t *testing.T, i int, st recordedStep, live jsonv.Value, info resourceInfo, r Request) {
	res, err := jsonv.Parse(st.Response)
	require.NoError(t, err)
	stored := withManagedFields(res.Value, nil)
	got := Update(live, stored, info.typ, r)
	assertManagedFields(t, i, st.Response, got)
}

// assertManagedFields compares managedFields; times must be present or
// absent alike.
func assertManagedFields(t *testing.T, i int, response []byte, got json.RawMessage) {
	var obj struct {
		Metadata struct {
			ManagedFields []map[string]any `json:"managedFields"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(response, &obj))
	var mine []map[string]any
	if got != nil {
		require.NoError(t, json.Unmarshal(got, &mine))
	}
	for _, list := range [][]map[string]any{obj.Metadata.ManagedFields, mine} {
		for _, e := range list {
			if _, ok := e["time"]; ok {
				e["time"] = "set"
			}
		}
	}
	want, _ := json.Marshal(obj.Metadata.ManagedFields)
	gotJSON, _ := json.Marshal(mine)
	assert.JSONEq(t, string(want), string(gotJSON), "step %d: managedFields", i)
}

// responseTime is the latest managedFields time of a response, the
// moment the write was made.
func responseTime(t *testing.T, response []byte) time.Time {
	var obj struct {
		Metadata struct {
			ManagedFields []struct{ Time *time.Time } `json:"managedFields"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(response, &obj)
	var latest time.Time
	for _, e := range obj.Metadata.ManagedFields {
		if e.Time != nil && e.Time.After(latest) {
			latest = *e.Time
		}
	}
	return latest
}

// defaulted lists fields the real server fills in by defaulting, which
// apply does not: they are ignored where the replayed object lacks them.
var defaulted = [][]string{
	{"status"},
	{"spec", "progressDeadlineSeconds"}, {"spec", "revisionHistoryLimit"}, {"spec", "replicas"}, {"spec", "strategy"},
	{"spec", "template", "metadata", "creationTimestamp"},
	{"spec", "template", "spec", "dnsPolicy"}, {"spec", "template", "spec", "restartPolicy"},
	{"spec", "template", "spec", "schedulerName"}, {"spec", "template", "spec", "securityContext"},
	{"spec", "template", "spec", "terminationGracePeriodSeconds"},
	{"spec", "template", "spec", "containers", "*", "resources"},
	{"spec", "template", "spec", "containers", "*", "terminationMessagePath"},
	{"spec", "template", "spec", "containers", "*", "terminationMessagePolicy"},
	{"spec", "template", "spec", "containers", "*", "imagePullPolicy"},
	{"spec", "clusterIP"}, {"spec", "clusterIPs"}, {"spec", "ipFamilies"}, {"spec", "ipFamilyPolicy"},
	{"spec", "internalTrafficPolicy"}, {"spec", "sessionAffinity"}, {"spec", "type"},
	{"spec", "ports", "*", "targetPort"}, {"spec", "ports", "*", "protocol"},
}

// normalize drops system metadata and the defaulted fields mine lacks.
func normalize(t *testing.T, doc []byte, mine jsonv.Value) jsonv.Value {
	res, err := jsonv.Parse(doc)
	require.NoError(t, err)
	v := res.Value
	if md := v.Get("metadata"); md != nil {
		for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "namespace"} {
			md.Delete(k)
		}
	}
	for _, p := range defaulted {
		dropDefault(&v, mine, p)
	}
	return dropNullMembers(v)
}

// dropNullMembers removes null members, which the server's Go types
// write for unset fields that are never omitted.
func dropNullMembers(v jsonv.Value) jsonv.Value {
	return jsonv.Pruned(v, func(_ string, pruned jsonv.Value) bool { return pruned.Kind == jsonv.Null })
}

func dropDefault(v *jsonv.Value, mine jsonv.Value, path []string) {
	if v == nil {
		return
	}
	if len(path) == 1 {
		if mine.Kind != jsonv.Object || mine.Get(path[0]) == nil {
			v.Delete(path[0])
		}
		return
	}
	child := v.Get(path[0])
	var mineChild jsonv.Value
	if m := mine.Get(path[0]); m != nil {
		mineChild = *m
	}
	if child == nil {
		return
	}
	if path[1] == "*" && child.Kind == jsonv.Array {
		for i := range child.Arr {
			var mi jsonv.Value
			if mineChild.Kind == jsonv.Array && i < len(mineChild.Arr) {
				mi = mineChild.Arr[i]
			}
			dropDefault(&child.Arr[i], mi, path[2:])
		}
		return
	}
	dropDefault(child, mineChild, path[1:])
}
