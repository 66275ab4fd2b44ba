package api

import "github.com/kubecache/kubecache/meta"

// Service is the part of a core/v1 Service the EndpointSlice controller
// reads.
type Service struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		Selector map[string]string `json:"selector,omitempty"`
		Ports    []ServicePort     `json:"ports,omitempty"`
	} `json:"spec"`
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name       string       `json:"name,omitempty"`
	Protocol   string       `json:"protocol,omitempty"`
	Port       int32        `json:"port"`
	TargetPort *IntOrString `json:"targetPort,omitempty"`
}

// EndpointSlice is a discovery.k8s.io/v1 EndpointSlice, written whole by
// its controller.
type EndpointSlice struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	AddressType     string         `json:"addressType"`
	Endpoints       []Endpoint     `json:"endpoints"`
	Ports           []EndpointPort `json:"ports"`
}

// Endpoint is one backend of an EndpointSlice.
type Endpoint struct {
	Addresses  []string           `json:"addresses"`
	Conditions EndpointConditions `json:"conditions"`
	NodeName   string             `json:"nodeName,omitempty"`
	TargetRef  *ObjectReference   `json:"targetRef,omitempty"`
}

// EndpointConditions say whether an endpoint takes traffic.
type EndpointConditions struct {
	Ready       *bool `json:"ready,omitempty"`
	Serving     *bool `json:"serving,omitempty"`
	Terminating *bool `json:"terminating,omitempty"`
}

// EndpointPort is one port of an EndpointSlice.
type EndpointPort struct {
	Name     *string `json:"name,omitempty"`
	Protocol *string `json:"protocol,omitempty"`
	Port     *int32  `json:"port,omitempty"`
}
