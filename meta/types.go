package meta

// TypeMeta says what an object is: its API group/version and its kind. It is
// embedded in every object with the tag `json:",inline"`.
//
// Items inside a built-in list carry no TypeMeta on the wire; the list's own
// kind says what they are.
type TypeMeta struct {
	// Kind comes first so that objects encode in the order the API server
	// writes them: kind, apiVersion, metadata.
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetTypeMeta returns t itself, so that any struct embedding TypeMeta
// satisfies the TypeMeta half of Object.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata every persisted object has. A user type embeds
// it with the tag `json:"metadata"`.
//
// ManagedFields holds the server-side apply entries as typed values whose
// field sets (FieldsV1) are immutable and shared between all objects that
// own equal sets: the pods of one ReplicaSet hold one copy of each set.
// Everything in it is immutable, so sharing keeps Clone's promise that a
// copy shares no mutable memory with the original.
type ObjectMeta struct {
	Name                       string            `json:"name,omitempty"`
	GenerateName               string            `json:"generateName,omitempty"`
	Namespace                  string            `json:"namespace,omitempty"`
	UID                        string            `json:"uid,omitempty"`
	ResourceVersion            string            `json:"resourceVersion,omitempty"`
	Generation                 int64             `json:"generation,omitempty"`
	CreationTimestamp          Time              `json:"creationTimestamp,omitzero"`
	DeletionTimestamp          *Time             `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string `json:"labels,omitempty"`
	Annotations                map[string]string `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers                 []string          `json:"finalizers,omitempty"`
	ManagedFields              ManagedFields     `json:"managedFields,omitempty"`
}

// GetObjectMeta returns m itself, so that any struct embedding ObjectMeta
// satisfies the ObjectMeta half of Object.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// OwnerReference names an object that owns this one; the garbage collector
// deletes dependents whose owners are gone.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// ListMeta is the metadata of a list response: the resourceVersion the list
// was read at, the token for the next page, and an estimate of what is left.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
	// ShardInfo is set when the list holds one shard of the collection
	// (a list with a shardSelector, on a server that serves them).
	ShardInfo *ShardInfo `json:"shardInfo,omitempty"`
}

// ShardInfo says which shard a list holds: the shardSelector it was read
// with, as the server spells it.
type ShardInfo struct {
	Selector string `json:"selector"`
}
