package builtin

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzHPAConversion feeds arbitrary objects (and annotations) to the
// autoscaling/v1 <-> v2 conversion: it never panics, and what it reads it
// converts back.
func FuzzHPAConversion(f *testing.F) {
	f.Add(`{"metadata":{"name":"a","annotations":{"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"q\",\"targetAverageValue\":\"1\"}}]"}},"spec":{"maxReplicas":2,"targetCPUUtilizationPercentage":5}}`)
	f.Add(`{"metadata":{"annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"Policies\":[{}]}}","autoscaling.alpha.kubernetes.io/current-metrics":"[{\"type\":\"External\",\"external\":{}}]"}},"status":{"currentCPUUtilizationPercentage":1}}`)
	f.Add(`{"spec":{"metrics":[{"type":"Object","object":{"target":{"type":"AverageValue","averageValue":"1"}}}]},"status":{"currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{}}}]}}`)
	f.Fuzz(func(t *testing.T, obj string) {
		if v2, err := HPAFromV1([]byte(obj)); err == nil {
			_, err := HPAToV1(v2)
			require.NoError(t, err)
		}
		if v1, err := HPAToV1([]byte(obj)); err == nil {
			_, err := HPAFromV1(v1)
			require.NoError(t, err)
		}
	})
}
