package builtin

// Conversion serves a kind at a version other than the one it is stored
// at: ToStored converts an object written at the served version (its
// full JSON), FromStored a stored one for reading at it.
type Conversion struct {
	StoredAPIVersion     string
	ToStored, FromStored func(obj []byte) ([]byte, error)
}

// Conversions holds the served versions that convert, by
// "apiVersion/Kind" of the served version: autoscaling/v1 HPAs are
// stored at autoscaling/v2 (hpa_convert.go), events.k8s.io/v1 Events as
// core/v1 Events (event_convert.go).
var Conversions = map[string]Conversion{
	"autoscaling/v1/HorizontalPodAutoscaler": {StoredAPIVersion: "autoscaling/v2", ToStored: HPAFromV1, FromStored: HPAToV1},
	"events.k8s.io/v1/Event":                 {StoredAPIVersion: "v1", ToStored: EventFromEventsV1, FromStored: EventToEventsV1},
}
