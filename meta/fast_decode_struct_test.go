package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastPod is a typed pod as a controller declares it.
type fastPod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       fastPodSpec   `json:"spec"`
	Status     fastPodStatus `json:"status"`
}

type fastPodSpec struct {
	NodeName   string          `json:"nodeName,omitempty"`
	Containers []fastContainer `json:"containers"`
	Priority   *int32          `json:"priority,omitempty"`
}

type fastContainer struct {
	Name      string            `json:"name"`
	Image     string            `json:"image"`
	Resources map[string]any    `json:"resources,omitempty"`
	Ports     []fastPort        `json:"ports,omitempty"`
	Env       []json.RawMessage `json:"env,omitempty"`
}

type fastPort struct {
	Name          string `json:"name"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol"`
}

type fastPodStatus struct {
	Phase      string          `json:"phase,omitempty"`
	Conditions []fastCondition `json:"conditions,omitempty"`
	StartTime  *Time           `json:"startTime,omitempty"`
}

type fastCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastTransitionTime Time   `json:"lastTransitionTime"`
}

// phase is a named string type; upper is one that decodes itself.
type phase string

type upper string

func (u *upper) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*u = upper(strings.ToUpper(s))
	return nil
}

// textual decodes itself from a JSON string through UnmarshalText.
type textual struct{ v string }

func (t *textual) UnmarshalText(b []byte) error {
	if bytes.Equal(b, []byte("bad")) {
		return errors.New("bad text")
	}
	t.v = "text:" + string(b)
	return nil
}

type labels map[string]string

type inner struct {
	A int     `json:"a"`
	B *inner  `json:"b,omitempty"` // recursive
	C []inner `json:"c,omitempty"`
}

type embedded struct {
	Promoted string `json:"promoted"`
	Shadow   int
}

// kitchenSink has a field of every kind the fast path handles, and of
// several it hands to encoding/json.
type kitchenSink struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	embedded

	S     string            `json:"s"`
	N     phase             `json:"n"`
	U     upper             `json:"u"`
	T     textual           `json:"t"`
	I     int               `json:"i"`
	I8    int8              `json:"i8"`
	U16   uint16            `json:"u16"`
	F32   float32           `json:"f32"`
	F     float64           `json:"f"`
	B     bool              `json:"b"`
	PS    *string           `json:"ps"`
	PI    *int              `json:"pi"`
	PT    *Time             `json:"pt"`
	PIn   *inner            `json:"pin"`
	In    inner             `json:"in"`
	SS    []string          `json:"ss"`
	SN    []phase           `json:"sn"`
	SP    []*inner          `json:"sp"`
	SSS   [][]string        `json:"sss"`
	M     map[string]string `json:"m"`
	ML    labels            `json:"ml"`
	MI    map[string]inner  `json:"mi"`
	MN    map[phase][]int   `json:"mn"`
	MK    map[int]string    `json:"mk"`
	Any   any               `json:"any"`
	Bytes []byte            `json:"bytes"`
	Arr   [2]int            `json:"arr"`
	Raw   json.RawMessage   `json:"raw"`
	Tm    Time              `json:"tm"`
	NoTag string
	Dash  string `json:"-"`
	Comma string `json:"-,"`
	Bad   string `json:"b\\ad"`
	skip  string //nolint:unused // unexported fields are ignored
}

// The layouts the fast path leaves to encoding/json entirely.
type (
	withPtrEmbed struct {
		*embedded
		X int `json:"x"`
	}
	withStringOpt struct {
		X int `json:"x,string"`
	}
	withConflict struct {
		embedded
		Other string `json:"promoted"`
	}
)

var sampleSink = `{"kind":"K","apiVersion":"v1","metadata":{"name":"n","namespace":"ns","labels":{"a":"b"},"managedFields":[ {"x" : 1} ]},
	"promoted":"p","Shadow":3,"s":"s\u00e9\ud83d","n":"Running","u":"up","t":"txt","i":-12,"i8":127,"u16":65535,"f32":1.5,"f":-2.5e3,"b":true,
	"ps":"x","pi":null,"pt":"2025-01-01T00:00:00Z","pin":{"a":1,"b":{"a":2}},"in":{"c":[{"a":3},null]},
	"ss":["a",null,"b"],"sn":["x"],"sp":[null,{"a":4}],"sss":[[],null,["z"]],"m":{"k":"v","z":null},"ml":{},"mi":{"x":{"a":5}},
	"mn":{"p":[1,2]},"mk":{"7":"seven"},"any":{"x":[1,"y",null,true]},"bytes":"aGk=","arr":[1],"raw":  {"r" : [1, 2]} ,
	"tm":null,"NoTag":"nt","-":"dash","Bad":"bad","skip":"no","unknown":{"deep":[1,{"x":null}]}}`

func TestStructDecoderLayouts(t *testing.T) {
	assert.NotNil(t, structDecoderFor(reflect.TypeFor[fastPod]()))
	assert.NotNil(t, structDecoderFor(reflect.TypeFor[kitchenSink]()))
	for _, typ := range []reflect.Type{
		reflect.TypeFor[withPtrEmbed](), reflect.TypeFor[withStringOpt](), reflect.TypeFor[withConflict](),
		reflect.TypeFor[upper](), reflect.TypeFor[Unstructured](),
	} {
		assert.Nil(t, structDecoderFor(typ), "%v has a fast decoder; encoding/json's rules for it are not implemented", typ)
	}
}

// The pod of testdata decodes on the fast path, to what encoding/json
// gives.
func TestStructDecoderPodFastPath(t *testing.T) {
	data, err := os.ReadFile("testdata/pod.json")
	require.NoError(t, err)
	var fast fastPod
	require.NoError(t, structDecoderFor(reflect.TypeFor[fastPod]()).decodeTop(data, reflect.ValueOf(&fast).Elem()))
	var want fastPod
	require.NoError(t, json.Unmarshal(data, &want))
	assert.Equal(t, want, fast)
	assert.NotEmpty(t, fast.Spec.Containers)
	assert.NotEmpty(t, fast.ManagedFields)
}

// Every kind of field decodes as encoding/json decodes it, on the fast
// path (no fallback).
func TestStructDecoderKitchenSink(t *testing.T) {
	var fast kitchenSink
	err := structDecoderFor(reflect.TypeFor[kitchenSink]()).decodeTop([]byte(sampleSink), reflect.ValueOf(&fast).Elem())
	require.NoError(t, err)
	var want kitchenSink
	require.NoError(t, json.Unmarshal([]byte(sampleSink), &want))
	assert.Equal(t, want, fast)
}

// Inputs the fast path gives up on still decode, through encoding/json,
// to encoding/json's result or error.
func TestDecodeFallsBackToEncodingJSON(t *testing.T) {
	for name, data := range map[string]string{
		"case-insensitive key":   `{"Metadata":{"Name":"a"},"SPEC":{"nodename":"n"}}`,
		"repeated object":        `{"metadata":{"labels":{"a":"1"}},"metadata":{"labels":{"b":"2"}}}`,
		"repeated scalar":        `{"spec":{"nodeName":"a","nodeName":"b"}}`,
		"number in a string":     `{"spec":{"nodeName":1}}`,
		"fraction in an int":     `{"spec":{"priority":1.5}}`,
		"overflow":               `{"spec":{"priority":99999999999}}`,
		"bad time":               `{"metadata":{"creationTimestamp":"yesterday"}}`,
		"syntax error":           `{"metadata":{"name":"a"},}`,
		"not an object":          `[1,2]`,
		"trailing garbage":       `{} x`,
		"null":                   `null`,
		"object where array":     `{"spec":{"containers":{}}}`,
		"null everywhere":        `{"metadata":null,"spec":{"containers":null,"priority":null},"status":{"conditions":[null],"startTime":null}}`,
		"escaped keys":           `{"\u006detadata":{"n\u0061me":"a"}}`,
		"invalid UTF-8 in value": "{\"spec\":{\"nodeName\":\"a\xffb\"}}",
	} {
		t.Run(name, func(t *testing.T) {
			got, gotErr := Decode[*fastPod]([]byte(data))
			var want fastPod
			wantErr := json.Unmarshal([]byte(data), &want)
			if wantErr != nil {
				require.Error(t, gotErr)
				assert.ErrorContains(t, gotErr, wantErr.Error())
				return
			}
			require.NoError(t, gotErr)
			assert.Equal(t, &want, got)
		})
	}
}

// The fast path shares the bytes of short repeated strings between
// objects, except those unique to an object.
func TestStructDecoderInterns(t *testing.T) {
	data := []byte(`{"metadata":{"name":"web-1","namespace":"prod","uid":"u-1","labels":{"app":"web"}},"spec":{"nodeName":"node-a","containers":[{"name":"c","image":"img:1"}]}}`)
	a, err := Decode[*fastPod](data)
	require.NoError(t, err)
	b, err := Decode[*fastPod](bytes.Clone(data))
	require.NoError(t, err)
	same := func(x, y string) bool { return x != "" && x == y && unsafe.StringData(x) == unsafe.StringData(y) }
	assert.True(t, same(a.Namespace, b.Namespace), "namespace")
	assert.True(t, same(a.Spec.NodeName, b.Spec.NodeName), "nodeName")
	assert.True(t, same(a.Spec.Containers[0].Image, b.Spec.Containers[0].Image), "image")
	assert.True(t, same(a.Labels["app"], b.Labels["app"]), "label value")
	assert.False(t, same(a.Name, b.Name), "name is not interned")
	assert.False(t, same(a.UID, b.UID), "uid is not interned")
}

// FuzzDecodeStructMatchesEncodingJSON checks the fast path against
// encoding/json: whenever the fast path succeeds its result must equal
// encoding/json's, and Decode (fast path or fallback) must always agree
// with encoding/json on success, value and failure.
func FuzzDecodeStructMatchesEncodingJSON(f *testing.F) {
	pod, err := os.ReadFile("testdata/pod.json")
	require.NoError(f, err)
	f.Add(pod)
	f.Add([]byte(sampleSink))
	for _, s := range []string{
		`{"metadata":{"name":"a","Name":"b"}}`, `{"s":"x","S":"y"}`, `{"ſ":"long s"}`, `{"K":"kelvin"}`,
		`{"i":1e2}`, `{"i":-0}`, `{"u16":-1}`, `{"f32":1e39}`, `{"m":{"a":1}}`, `{"sp":[{"b":null}]}`,
		`{"pt":""}`, `{"pin":null}`, `{"bytes":"!"}`, `{"t":"bad"}`, `{"t":1}`, `{"mk":{"x":"y"}}`, `{"arr":[1,2,3]}`,
		`{"in":{"b":{"b":{"b":{"a":9}}}}}`, `{"promoted":1}`, `{"Shadow":"x"}`, `{"metadata":{"labels":{"a":"b"},"labels":{"c":"d"}}}`,
	} {
		f.Add([]byte(s))
	}
	sink := structDecoderFor(reflect.TypeFor[kitchenSink]())
	podDec := structDecoderFor(reflect.TypeFor[fastPod]())
	f.Fuzz(func(t *testing.T, data []byte) {
		var fastSink, wantSink kitchenSink
		if sink.decodeTop(data, reflect.ValueOf(&fastSink).Elem()) == nil {
			require.NoError(t, json.Unmarshal(data, &wantSink), "the fast path accepted %q", data)
			require.Equal(t, wantSink, fastSink, "on %q", data)
		}
		var fastP, wantP fastPod
		if podDec.decodeTop(data, reflect.ValueOf(&fastP).Elem()) == nil {
			require.NoError(t, json.Unmarshal(data, &wantP), "the fast path accepted %q", data)
			require.Equal(t, wantP, fastP, "on %q", data)
		}
		got, gotErr := Decode[*fastPod](data)
		var want fastPod
		wantErr := json.Unmarshal(data, &want)
		require.Equal(t, wantErr == nil, gotErr == nil, "on %q: encoding/json %v, Decode %v", data, wantErr, gotErr)
		if wantErr == nil {
			require.Equal(t, &want, got, "on %q", data)
		}
	})
}

// A slice of structs decodes as encoding/json decodes it, element by
// element from zero, and holds exactly its elements: the cached object
// keeps the slice for its life.
func TestStructDecoderSlicesExact(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 5, 9} {
		var b strings.Builder
		b.WriteString(`{"spec":{"containers":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"name":"c%d","image":"img","ports":[{"name":"p","containerPort":%d}]}`, i, 80+i)
		}
		b.WriteString(`]}}`)
		data := []byte(b.String())

		var want, fast fastPod
		require.NoError(t, json.Unmarshal(data, &want))
		require.NoError(t, structDecoderFor(reflect.TypeFor[fastPod]()).decodeTop(data, reflect.ValueOf(&fast).Elem()))
		assert.Equal(t, want, fast, "%d containers", n)
		require.NotNil(t, fast.Spec.Containers, "an empty array is an empty slice, not nil")
		assert.Equal(t, n, cap(fast.Spec.Containers), "%d containers held in a slice of capacity %d", n, cap(fast.Spec.Containers))
	}
}
