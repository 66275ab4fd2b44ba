package meta

// PartialObjectMetadata is an object reduced to its TypeMeta and
// ObjectMeta: what the API server sends for
// Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, and
// what a controller that needs only names, labels and owners should cache.
//
// Decoding one from a full object keeps kind, apiVersion and metadata and
// skips everything else without allocating for it.
type PartialObjectMetadata struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
}

// PartialObjectMetadataList is the list form (kind PartialObjectMetadataList).
type PartialObjectMetadataList = List[*PartialObjectMetadata]

// UnmarshalJSON decodes the kind, apiVersion and metadata of any JSON
// object into p, replacing its contents, and checks but skips the rest.
// Metadata fields ObjectMeta does not know are dropped. The literal null
// leaves p unchanged. On error p is unchanged.
func (p *PartialObjectMetadata) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var n PartialObjectMetadata
	var raw rawMetadata
	s := scanner{data: data}
	if s.peek() != '{' {
		return s.typeError("object", "a JSON object")
	}
	err := s.object(func(key []byte, escaped bool, _ int) error {
		if escaped {
			key = []byte(unquote(key))
		}
		if ok, err := s.headerMember(key, &n.TypeMeta, &n.ObjectMeta, &raw); ok {
			return err
		}
		return s.skipValue()
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return err
	}
	*p = n
	return nil
}

func (p *PartialObjectMetadata) decodeChecked(data []byte) error { return p.UnmarshalJSON(data) }

// DeepCopy returns a copy of p that shares no memory with it.
func (p *PartialObjectMetadata) DeepCopy() *PartialObjectMetadata {
	if p == nil {
		return nil
	}
	return &PartialObjectMetadata{TypeMeta: p.TypeMeta, ObjectMeta: deepCopyObjectMeta(&p.ObjectMeta)}
}
