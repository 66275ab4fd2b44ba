package meta

// Fast path: PeekMeta. Routing or keying an object needs six strings of
// it; the plain version, json.Unmarshal into a struct with TypeMeta and
// ObjectMeta, decodes all of metadata (labels, annotations, managedFields)
// to get them. PeekMeta runs the scanner over the object, keeps those six
// and skips the rest without allocating, yet still rejects what
// encoding/json would reject. The reflector uses it to recognise an object
// it already holds without decoding it again. BenchmarkPeekMeta against
// BenchmarkJSONUnmarshalPartialObjectMetadata measures the difference
// (go test -run '^$' -bench . -benchmem ./meta/; figures in
// docs/performance.md, "meta and selector").

// PeekedMeta is what PeekMeta reads from an object: enough to key it, to
// route it and to track resourceVersions.
type PeekedMeta struct {
	Kind            string
	APIVersion      string
	Namespace       string
	Name            string
	ResourceVersion string
	UID             string
}

// PeekMeta reads kind, apiVersion and metadata's namespace, name,
// resourceVersion and uid from a JSON object without decoding anything
// else. It is several times faster than decoding into PartialObjectMetadata
// and allocates only the strings it returns.
//
// The whole input is still checked: PeekMeta fails, with a *SyntaxError,
// exactly when encoding/json would reject the bytes, and with a *TypeError
// when the input is not an object or one of the six fields (or metadata) is
// not a string (an object) or null. Keys match exactly, escapes in keys
// and values are decoded, null reads as "", and when a key repeats the last
// one wins.
func PeekMeta(raw []byte) (PeekedMeta, error) {
	var p PeekedMeta
	s := scanner{data: raw}
	if c := s.peek(); c != '{' {
		if c == 0 {
			return p, s.syntaxError("empty input, expected an object")
		}
		return p, s.typeError("object", "a JSON object")
	}
	err := s.object(func(key []byte, escaped bool, _ int) error {
		if escaped {
			// A key spelled with escapes may still be one of ours.
			key = []byte(unquote(key))
		}
		var err error
		switch string(key) {
		case "kind":
			p.Kind, err = s.stringValue("kind")
		case "apiVersion":
			p.APIVersion, err = s.stringValue("apiVersion")
		case "metadata":
			p.Namespace, p.Name, p.ResourceVersion, p.UID = "", "", "", ""
			err = s.peekMetadata(&p)
		default:
			err = s.skipValue()
		}
		return err
	})
	if err != nil {
		return PeekedMeta{}, err
	}
	if err := s.end(); err != nil {
		return PeekedMeta{}, err
	}
	return p, nil
}

// peekMetadata reads the four metadata fields PeekMeta returns.
func (s *scanner) peekMetadata(p *PeekedMeta) error {
	if open, err := s.openMetadata(); !open {
		return err
	}
	return s.object(func(key []byte, escaped bool, _ int) error {
		if escaped {
			key = []byte(unquote(key))
		}
		var err error
		switch string(key) {
		case "namespace":
			p.Namespace, err = s.stringValue("metadata.namespace")
		case "name":
			p.Name, err = s.stringValue("metadata.name")
		case "resourceVersion":
			p.ResourceVersion, err = s.stringValue("metadata.resourceVersion")
		case "uid":
			p.UID, err = s.stringValue("metadata.uid")
		default:
			err = s.skipValue()
		}
		return err
	})
}
