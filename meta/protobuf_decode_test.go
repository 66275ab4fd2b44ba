package meta

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/kubeproto"
)

// protoPod is a pod type with the shapes the protobuf plan decodes
// directly: nested structs, slices of structs, pointers, int32 and int64,
// maps of strings and of quantities, Time, and values it converts through
// JSON (an IntOrString held as any, a probe held as a map).
type protoPod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       struct {
		NodeName                      string           `json:"nodeName,omitempty"`
		TerminationGracePeriodSeconds *int64           `json:"terminationGracePeriodSeconds,omitempty"`
		Containers                    []protoContainer `json:"containers,omitempty"`
		Tolerations                   []struct {
			Key               string `json:"key,omitempty"`
			Operator          string `json:"operator,omitempty"`
			Effect            string `json:"effect,omitempty"`
			TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
		} `json:"tolerations,omitempty"`
		Volumes        []map[string]any `json:"volumes,omitempty"`
		EnableLinks    *bool            `json:"enableServiceLinks,omitempty"`
		NodeSelector   map[string]string
		SecurityContex json.RawMessage `json:"securityContext,omitempty"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase,omitempty"`
		PodIP      string `json:"podIP,omitempty"`
		StartTime  *Time  `json:"startTime,omitempty"`
		Conditions []struct {
			Type               string `json:"type"`
			Status             string `json:"status"`
			LastTransitionTime Time   `json:"lastTransitionTime,omitzero"`
		} `json:"conditions,omitempty"`
		ContainerStatuses []map[string]any `json:"containerStatuses,omitempty"`
	} `json:"status"`
}

type protoContainer struct {
	Name  string `json:"name"`
	Image string `json:"image,omitempty"`
	Ports []struct {
		Name          string `json:"name,omitempty"`
		ContainerPort int32  `json:"containerPort"`
		Protocol      string `json:"protocol,omitempty"`
	} `json:"ports,omitempty"`
	Env []struct {
		Name  string `json:"name"`
		Value string `json:"value,omitempty"`
	} `json:"env,omitempty"`
	Resources struct {
		Limits   map[string]string `json:"limits,omitempty"`
		Requests map[string]string `json:"requests,omitempty"`
	} `json:"resources,omitempty"`
	ReadinessProbe map[string]any `json:"readinessProbe,omitempty"`
}

// wideObject holds any object's metadata, and its usual top-level members
// as generic values (converted through JSON by the plan).
type wideObject struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       any               `json:"spec,omitempty"`
	Status     any               `json:"status,omitempty"`
	Data       map[string]string `json:"data,omitempty"`
}

// protoOf encodes the JSON object as its bare protobuf message.
func protoOf(t testing.TB, data []byte) []byte {
	t.Helper()
	msg, err := kubeproto.EncodeMessage("v1", "Pod", data)
	require.NoError(t, err)
	return msg
}

// TestDecodeProtobufMatchesDecode decodes the test pod from its protobuf
// message into several types and compares each with Decode of the JSON
// the message converts to.
func TestDecodeProtobufMatchesDecode(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "pod.json"))
	require.NoError(t, err)
	msg := protoOf(t, raw)
	js, err := kubeproto.DecodeMessage("v1", "Pod", msg, true)
	require.NoError(t, err)
	t.Run("protoPod", func(t *testing.T) { compareProtobuf[*protoPod](t, msg, js) })
	t.Run("wide", func(t *testing.T) { compareProtobuf[*wideObject](t, msg, js) })
	t.Run("partial", func(t *testing.T) { compareProtobuf[*PartialObjectMetadata](t, msg, js) })
	t.Run("unstructured", func(t *testing.T) { compareProtobuf[*Unstructured](t, msg, js) })

	pod, err := DecodeProtobuf[*protoPod]("v1", "Pod", msg)
	require.NoError(t, err)
	assert.NotEmpty(t, pod.Spec.Containers)
	assert.NotEmpty(t, pod.Labels)
	assert.False(t, pod.CreationTimestamp.IsZero())
	assert.NotEmpty(t, pod.ManagedFields)
}

func compareProtobuf[T Object](t *testing.T, msg, js []byte) {
	t.Helper()
	want, err := Decode[T](js)
	require.NoError(t, err)
	got, err := DecodeProtobuf[T]("v1", "Pod", msg)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// TestDecodeProtobufFixtures decodes the protobuf body of every fixture
// written by the real encoders into a wide type and into
// PartialObjectMetadata, and compares with Decode of the fixture's JSON
// for that body.
func TestDecodeProtobufFixtures(t *testing.T) {
	n := 0
	for _, fx := range readProtobufFixtures(t) {
		body, err := base64.StdEncoding.DecodeString(fx.Proto)
		require.NoError(t, err)
		js := []byte(fx.ProtoJSON)
		wantW, errW := Decode[*wideObject](js)
		gotW, err := DecodeProtobufBody[*wideObject](body)
		if errW == nil {
			require.NoError(t, err, fx.Kind)
			assert.Equal(t, wantW, gotW, fx.Kind)
		}
		wantP, errP := Decode[*PartialObjectMetadata](js)
		gotP, err := DecodeProtobufBody[*PartialObjectMetadata](body)
		if errP == nil {
			require.NoError(t, err, fx.Kind)
			assert.Equal(t, wantP, gotP, fx.Kind)
		}
		n++
	}
	assert.Greater(t, n, 100)
}

// TestDecodeProtobufErrors checks that malformed messages are errors.
func TestDecodeProtobufErrors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "pod.json"))
	require.NoError(t, err)
	msg := protoOf(t, raw)
	for name, bad := range map[string][]byte{
		"truncated":  msg[:len(msg)/2],
		"bad tag":    {0x07},
		"wrong wire": {0x08, 0x01}, // metadata as a varint
	} {
		_, err := DecodeProtobuf[*protoPod]("v1", "Pod", bad)
		assert.Error(t, err, name)
	}
	_, err = DecodeProtobuf[*protoPod]("example.com/v1", "Widget", msg)
	assert.ErrorIs(t, err, kubeproto.ErrUnknownKind)
}

// TestPeekProtobuf reads the identity of the test pod from its message.
func TestPeekProtobuf(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "pod.json"))
	require.NoError(t, err)
	want, err := PeekMeta(raw)
	require.NoError(t, err)
	got, err := PeekProtobuf(protoOf(t, raw))
	require.NoError(t, err)
	want.Kind, want.APIVersion = "", ""
	assert.Equal(t, want, got)
}

// TestDecodeProtobufListMeta decodes a list's metadata.
func TestDecodeProtobufListMeta(t *testing.T) {
	msg, err := kubeproto.EncodeMessage("v1", "PodList", []byte(`{"metadata":{"resourceVersion":"42","continue":"abc","remainingItemCount":7},"items":[]}`))
	require.NoError(t, err)
	md, err := lastBytesField(msg, 1)
	require.NoError(t, err)
	lm, err := DecodeProtobufListMeta(md)
	require.NoError(t, err)
	seven := int64(7)
	assert.Equal(t, ListMeta{ResourceVersion: "42", Continue: "abc", RemainingItemCount: &seven}, lm)
}

// FuzzDecodeProtobuf decodes arbitrary bytes as a pod message into
// protoPod and narrowPod: never a panic, and where kubeproto converts the
// bytes to JSON and Decode accepts that, the same object.
func FuzzDecodeProtobuf(f *testing.F) {
	raw, err := os.ReadFile(filepath.Join("testdata", "pod.json"))
	require.NoError(f, err)
	f.Add(protoOf(f, raw))
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	f.Add(protoOf(f, []byte(`{"spec":{"priority":0,"containers":[{"name":"c","ports":[{"containerPort":1,"hostPort":0}]}]}}`)))
	f.Fuzz(func(t *testing.T, msg []byte) {
		fuzzProtobufAgainstJSON[*protoPod](t, msg)
		fuzzProtobufAgainstJSON[*narrowPod](t, msg)
	})
}

// fuzzProtobufAgainstJSON decodes msg as a pod into a T and, where its
// JSON form decodes too, compares the two.
func fuzzProtobufAgainstJSON[T Object](t *testing.T, msg []byte) {
	got, err := DecodeProtobuf[T]("v1", "Pod", msg)
	if _, err := PeekProtobuf(msg); err != nil {
		return
	}
	js, jerr := kubeproto.DecodeMessage("v1", "Pod", msg, true)
	if jerr != nil {
		return
	}
	want, werr := Decode[T](js)
	if werr != nil || err != nil {
		return
	}
	assert.Equal(t, want, got)
}

// narrowPod holds a pod's integers in Go types narrower than their
// protobuf fields, signed and unsigned, direct and behind pointers.
type narrowPod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       struct {
		Priority                      int8   `json:"priority"`
		TerminationGracePeriodSeconds uint16 `json:"terminationGracePeriodSeconds"`
		ActiveDeadlineSeconds         *uint8 `json:"activeDeadlineSeconds"`
		Containers                    []struct {
			Ports []struct {
				ContainerPort int16 `json:"containerPort"`
				HostPort      *uint `json:"hostPort"`
			} `json:"ports"`
		} `json:"containers"`
	} `json:"spec"`
}

// TestDecodeProtobufIntegerWidths decodes integers that fit the narrow Go
// types and integers that do not: the protobuf path gives Decode's value
// where Decode succeeds, and an error where Decode refuses the value.
func TestDecodeProtobufIntegerWidths(t *testing.T) {
	for name, spec := range map[string]string{
		"fit":              `{"priority":-128,"terminationGracePeriodSeconds":65535,"activeDeadlineSeconds":255,"containers":[{"name":"c","ports":[{"containerPort":32767,"hostPort":80}]}]}`,
		"zero":             `{"priority":0,"terminationGracePeriodSeconds":0,"activeDeadlineSeconds":0,"containers":[{"name":"c","ports":[{"containerPort":0}]}]}`,
		"int8 overflow":    `{"priority":128,"containers":[{"name":"c"}]}`,
		"int8 underflow":   `{"priority":-129,"containers":[{"name":"c"}]}`,
		"uint16 overflow":  `{"terminationGracePeriodSeconds":65536,"containers":[{"name":"c"}]}`,
		"uint16 negative":  `{"terminationGracePeriodSeconds":-1,"containers":[{"name":"c"}]}`,
		"*uint8 overflow":  `{"activeDeadlineSeconds":256,"containers":[{"name":"c"}]}`,
		"int16 overflow":   `{"containers":[{"name":"c","ports":[{"containerPort":40000}]}]}`,
		"*uint negative":   `{"containers":[{"name":"c","ports":[{"containerPort":1,"hostPort":-2}]}]}`,
		"int64 to uint16":  `{"terminationGracePeriodSeconds":9223372036854775807,"containers":[{"name":"c"}]}`,
		"*uint8 negative":  `{"activeDeadlineSeconds":-1,"containers":[{"name":"c"}]}`,
		"int8 large int32": `{"priority":2147483647,"containers":[{"name":"c"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			js := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":` + spec + `}`)
			msg, err := kubeproto.EncodeMessage("v1", "Pod", js)
			require.NoError(t, err)
			back, err := kubeproto.DecodeMessage("v1", "Pod", msg, true)
			require.NoError(t, err)
			want, werr := Decode[*narrowPod](back)
			got, err := DecodeProtobuf[*narrowPod]("v1", "Pod", msg)
			if werr != nil {
				assert.Error(t, err, "Decode refuses it: %v", werr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// TestDecodeProtobufIdentity checks ObjectMeta's name, uid and
// resourceVersion, which are decoded together into one allocation: they
// share it, a metadata message given twice merges (a field absent from the
// second keeps the first's value), and invalid UTF-8 is replaced as JSON
// would.
func TestDecodeProtobufIdentity(t *testing.T) {
	meta1 := protobufField(1, append(protobufField(1, []byte("web-0")), protobufField(5, []byte("uid-1"))...))
	meta2 := protobufField(1, append(protobufField(6, []byte("42")), protobufField(3, []byte("prod"))...))
	for name, msg := range map[string][]byte{
		"merged":  append(append([]byte{}, meta1...), meta2...),
		"last":    append(append([]byte{}, meta1...), protobufField(1, protobufField(1, []byte("web-1")))...),
		"invalid": protobufField(1, append(protobufField(1, []byte("a\xffb")), protobufField(6, []byte("7"))...)),
	} {
		t.Run(name, func(t *testing.T) {
			js, err := kubeproto.DecodeMessage("v1", "Pod", msg, true)
			require.NoError(t, err)
			want, err := Decode[*PartialObjectMetadata](js)
			require.NoError(t, err)
			got, err := DecodeProtobuf[*PartialObjectMetadata]("v1", "Pod", msg)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}

	got, err := DecodeProtobuf[*PartialObjectMetadata]("v1", "Pod", append(append([]byte{}, meta1...), meta2...))
	require.NoError(t, err)
	require.Equal(t, "web-0", got.Name)
	require.Equal(t, "uid-1", got.UID)
	assert.Equal(t, unsafe.Add(unsafe.Pointer(unsafe.StringData(got.Name)), len(got.Name)), unsafe.Pointer(unsafe.StringData(got.UID)),
		"uid follows name in one allocation")
}

// protobufField encodes a length-delimited field with a one-byte tag.
func protobufField(num int, data []byte) []byte {
	return append([]byte{byte(num<<3 | 2), byte(len(data))}, data...)
}
