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

type hpaMetricV2 struct {
	Type              string                        `json:"type"`
	Object            *hpaMetricV2Object            `json:"object,omitempty"`
	Pods              *hpaMetricV2Pods              `json:"pods,omitempty"`
	Resource          *hpaMetricV2Resource          `json:"resource,omitempty"`
	ContainerResource *hpaMetricV2ContainerResource `json:"containerResource,omitempty"`
	External          *hpaMetricV2External          `json:"external,omitempty"`
}

type hpaMetricStatusV2 struct {
	Type              string                              `json:"type"`
	Object            *hpaMetricStatusV2Object            `json:"object,omitempty"`
	Pods              *hpaMetricStatusV2Pods              `json:"pods,omitempty"`
	Resource          *hpaMetricStatusV2Resource          `json:"resource,omitempty"`
	ContainerResource *hpaMetricStatusV2ContainerResource `json:"containerResource,omitempty"`
	External          *hpaMetricStatusV2External          `json:"external,omitempty"`
}

type hpaScalingRules struct {
	StabilizationWindowSeconds *int32      `json:"stabilizationWindowSeconds,omitempty"`
	SelectPolicy               *string     `json:"selectPolicy,omitempty"`
	Policies                   []hpaPolicy `json:"policies,omitempty"`
	Tolerance                  *string     `json:"tolerance,omitempty"`
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

type hpaMetricV1 struct {
	Type              string                        `json:"type"`
	Object            *hpaMetricV1Object            `json:"object,omitempty"`
	Pods              *hpaMetricV1Pods              `json:"pods,omitempty"`
	Resource          *hpaMetricV1Resource          `json:"resource,omitempty"`
	ContainerResource *hpaMetricV1ContainerResource `json:"containerResource,omitempty"`
	External          *hpaMetricV1External          `json:"external,omitempty"`
}

type hpaMetricStatusV1 struct {
	Type              string                              `json:"type"`
	Object            *hpaMetricStatusV1Object            `json:"object,omitempty"`
	Pods              *hpaMetricStatusV1Pods              `json:"pods,omitempty"`
	Resource          *hpaMetricStatusV1Resource          `json:"resource,omitempty"`
	ContainerResource *hpaMetricStatusV1ContainerResource `json:"containerResource,omitempty"`
	External          *hpaMetricStatusV1External          `json:"external,omitempty"`
}

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
	Name      string    `json:"name"`
	Target    hpaTarget `json:"target"`
	Container string    `json:"container"`
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
	Name      string         `json:"name"`
	Current   hpaValueStatus `json:"current"`
	Container string         `json:"container"`
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
	Name                     string  `json:"name"`
	TargetAverageUtilization *int32  `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *string `json:"targetAverageValue,omitempty"`
	Container                string  `json:"container"`
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
	Name                      string `json:"name"`
	CurrentAverageUtilization *int32 `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       string `json:"currentAverageValue"`
	Container                 string `json:"container"`
}

type hpaMetricStatusV1External struct {
	MetricName          string          `json:"metricName"`
	MetricSelector      json.RawMessage `json:"metricSelector,omitempty"`
	CurrentValue        string          `json:"currentValue"`
	CurrentAverageValue *string         `json:"currentAverageValue,omitempty"`
}
