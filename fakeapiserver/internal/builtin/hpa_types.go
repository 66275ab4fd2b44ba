package builtin

import "encoding/json"

// The HorizontalPodAutoscaler shapes the v1 <-> v2 conversion reads and
// writes, as the Go types of autoscaling/v1 and autoscaling/v2 encode
// them (same field order, same omitempty).

type hpaRef struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// v2 shapes.

type hpaTarget struct {
	Type               string  `json:"type"`
	Value              *string `json:"value,omitempty"`
	AverageValue       *string `json:"averageValue,omitempty"`
	AverageUtilization *int32  `json:"averageUtilization,omitempty"`
}

type hpaValueStatus struct {
	Value              *string `json:"value,omitempty"`
	AverageValue       *string `json:"averageValue,omitempty"`
	AverageUtilization *int32  `json:"averageUtilization,omitempty"`
}

type hpaMetricID struct {
	Name     string          `json:"name"`
	Selector json.RawMessage `json:"selector,omitempty"`
}

// hpaMetricOf is one metric of an HPA, in its spec or its status, at
// either version: its type and the one source of that type it names.
// The four instances below differ only in the source shapes.
type hpaMetricOf[Object, Pods, Resource, ContainerResource, External any] struct {
	Type              string             `json:"type"`
	Object            *Object            `json:"object,omitempty"`
	Pods              *Pods              `json:"pods,omitempty"`
	Resource          *Resource          `json:"resource,omitempty"`
	ContainerResource *ContainerResource `json:"containerResource,omitempty"`
	External          *External          `json:"external,omitempty"`
}

type hpaMetricV2 = hpaMetricOf[hpaMetricV2Object, hpaMetricV2Pods, hpaMetricV2Resource, hpaMetricV2ContainerResource, hpaMetricV2External]

type hpaMetricStatusV2 = hpaMetricOf[hpaMetricStatusV2Object, hpaMetricStatusV2Pods, hpaMetricStatusV2Resource, hpaMetricStatusV2ContainerResource, hpaMetricStatusV2External]

type hpaScalingRules struct {
	StabilizationWindowSeconds *int32  `json:"stabilizationWindowSeconds,omitempty"`
	SelectPolicy               *string `json:"selectPolicy,omitempty"`
	// Policies is a pointer so that a behavior read from the v1
	// annotation can say policies: [] (see behaviorFromAnnotation).
	Policies  *[]hpaPolicy `json:"policies,omitempty"`
	Tolerance *string      `json:"tolerance,omitempty"`
}

type hpaBehavior struct {
	ScaleUp   *hpaScalingRules `json:"scaleUp,omitempty"`
	ScaleDown *hpaScalingRules `json:"scaleDown,omitempty"`
}

// hpaBehaviorAnnotation is the behavior as the real server writes it in
// the v1 annotation: its internal Go type, marshalled without JSON tags.
type hpaBehaviorAnnotation struct {
	ScaleUp   *hpaRulesAnnotation
	ScaleDown *hpaRulesAnnotation
}

type hpaRulesAnnotation struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *string
	Policies                   []hpaPolicyAnnotation
	Tolerance                  *string
}

type hpaPolicyAnnotation struct {
	Type          string
	Value         int32
	PeriodSeconds int32
}

// v1 annotation shapes (autoscaling/v1 MetricSpec and MetricStatus).

type hpaMetricV1 = hpaMetricOf[hpaMetricV1Object, hpaMetricV1Pods, hpaMetricV1Resource, hpaMetricV1ContainerResource, hpaMetricV1External]

type hpaMetricStatusV1 = hpaMetricOf[hpaMetricStatusV1Object, hpaMetricStatusV1Pods, hpaMetricStatusV1Resource, hpaMetricStatusV1ContainerResource, hpaMetricStatusV1External]

type hpaPolicy struct {
	Type          string `json:"type"`
	Value         int32  `json:"value"`
	PeriodSeconds int32  `json:"periodSeconds"`
}

type hpaMetricV2Object struct {
	DescribedObject hpaRef      `json:"describedObject"`
	Target          hpaTarget   `json:"target"`
	Metric          hpaMetricID `json:"metric"`
}

type hpaMetricV2Pods struct {
	Metric hpaMetricID `json:"metric"`
	Target hpaTarget   `json:"target"`
}

type hpaMetricV2Resource struct {
	Name   string    `json:"name"`
	Target hpaTarget `json:"target"`
}

type hpaMetricV2ContainerResource struct {
	hpaMetricV2Resource
	Container string `json:"container"`
}

type hpaMetricV2External struct {
	Metric hpaMetricID `json:"metric"`
	Target hpaTarget   `json:"target"`
}

type hpaMetricStatusV2Object struct {
	Metric          hpaMetricID    `json:"metric"`
	Current         hpaValueStatus `json:"current"`
	DescribedObject hpaRef         `json:"describedObject"`
}

type hpaMetricStatusV2Pods struct {
	Metric  hpaMetricID    `json:"metric"`
	Current hpaValueStatus `json:"current"`
}

type hpaMetricStatusV2Resource struct {
	Name    string         `json:"name"`
	Current hpaValueStatus `json:"current"`
}

type hpaMetricStatusV2ContainerResource struct {
	hpaMetricStatusV2Resource
	Container string `json:"container"`
}

type hpaMetricStatusV2External struct {
	Metric  hpaMetricID    `json:"metric"`
	Current hpaValueStatus `json:"current"`
}

type hpaMetricV1Object struct {
	Target       hpaRef          `json:"target"`
	MetricName   string          `json:"metricName"`
	TargetValue  string          `json:"targetValue"`
	Selector     json.RawMessage `json:"selector,omitempty"`
	AverageValue *string         `json:"averageValue,omitempty"`
}

type hpaMetricV1Pods struct {
	MetricName         string          `json:"metricName"`
	TargetAverageValue string          `json:"targetAverageValue"`
	Selector           json.RawMessage `json:"selector,omitempty"`
}

type hpaMetricV1Resource struct {
	Name                     string  `json:"name"`
	TargetAverageUtilization *int32  `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *string `json:"targetAverageValue,omitempty"`
}

type hpaMetricV1ContainerResource struct {
	hpaMetricV1Resource
	Container string `json:"container"`
}

type hpaMetricV1External struct {
	MetricName         string          `json:"metricName"`
	MetricSelector     json.RawMessage `json:"metricSelector,omitempty"`
	TargetValue        *string         `json:"targetValue,omitempty"`
	TargetAverageValue *string         `json:"targetAverageValue,omitempty"`
}

type hpaMetricStatusV1Object struct {
	Target       hpaRef          `json:"target"`
	MetricName   string          `json:"metricName"`
	CurrentValue string          `json:"currentValue"`
	Selector     json.RawMessage `json:"selector,omitempty"`
	AverageValue *string         `json:"averageValue,omitempty"`
}

type hpaMetricStatusV1Pods struct {
	MetricName          string          `json:"metricName"`
	CurrentAverageValue string          `json:"currentAverageValue"`
	Selector            json.RawMessage `json:"selector,omitempty"`
}

type hpaMetricStatusV1Resource struct {
	Name                      string `json:"name"`
	CurrentAverageUtilization *int32 `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       string `json:"currentAverageValue"`
}

type hpaMetricStatusV1ContainerResource struct {
	hpaMetricStatusV1Resource
	Container string `json:"container"`
}

type hpaMetricStatusV1External struct {
	MetricName          string          `json:"metricName"`
	MetricSelector      json.RawMessage `json:"metricSelector,omitempty"`
	CurrentValue        string          `json:"currentValue"`
	CurrentAverageValue *string         `json:"currentAverageValue,omitempty"`
}
