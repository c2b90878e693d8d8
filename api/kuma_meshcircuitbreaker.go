package api

import "k8s.io/apimachinery/pkg/util/intstr"

// MeshCircuitBreakerSpec is a MeshCircuitBreaker: connection limits and outlier
// detection of outbound clusters (`to`) and inbounds (`from`, `rules`).
type MeshCircuitBreakerSpec = Policy[MeshCircuitBreakerConf]

// MeshCircuitBreakerConf is the conf of MeshCircuitBreaker's items, after Kuma's
// meshcircuitbreaker v1alpha1 Conf. Kuma's counters are uint32; they are int64 here
// so that a negative number decodes and the validator can say what is wrong with it
// (Kuma itself cannot decode it and refuses the object).
type MeshCircuitBreakerConf struct {
	ConnectionLimits *ConnectionLimits `json:"connectionLimits,omitempty"`
	OutlierDetection *OutlierDetection `json:"outlierDetection,omitempty"`
}

// ConnectionLimits are Envoy's circuit breaker thresholds.
type ConnectionLimits struct {
	MaxConnections     *int64 `json:"maxConnections,omitempty"`
	MaxConnectionPools *int64 `json:"maxConnectionPools,omitempty"`
	MaxPendingRequests *int64 `json:"maxPendingRequests,omitempty"`
	MaxRetries         *int64 `json:"maxRetries,omitempty"`
	MaxRequests        *int64 `json:"maxRequests,omitempty"`
}

// OutlierDetection ejects hosts that fail; durations are strings as in the CRD.
type OutlierDetection struct {
	Disabled                    *bool               `json:"disabled,omitempty"`
	Interval                    *string             `json:"interval,omitempty"`
	BaseEjectionTime            *string             `json:"baseEjectionTime,omitempty"`
	MaxEjectionPercent          *int64              `json:"maxEjectionPercent,omitempty"`
	SplitExternalAndLocalErrors *bool               `json:"splitExternalAndLocalErrors,omitempty"`
	Detectors                   *Detectors          `json:"detectors,omitempty"`
	HealthyPanicThreshold       *intstr.IntOrString `json:"healthyPanicThreshold,omitempty"`
}

// Detectors are the kinds of failure outlier detection counts.
type Detectors struct {
	TotalFailures       *ConsecutiveDetector `json:"totalFailures,omitempty"`
	GatewayFailures     *ConsecutiveDetector `json:"gatewayFailures,omitempty"`
	LocalOriginFailures *ConsecutiveDetector `json:"localOriginFailures,omitempty"`
	SuccessRate         *SuccessRateDetector `json:"successRate,omitempty"`
	FailurePercentage   *FailurePercentage   `json:"failurePercentage,omitempty"`
}

// ConsecutiveDetector ejects a host after a number of consecutive failures (the
// totalFailures, gatewayFailures and localOriginFailures detectors share it).
type ConsecutiveDetector struct {
	Consecutive *int64 `json:"consecutive,omitempty"`
}

// SuccessRateDetector ejects hosts whose success rate is an outlier.
type SuccessRateDetector struct {
	MinimumHosts            *int64              `json:"minimumHosts,omitempty"`
	RequestVolume           *int64              `json:"requestVolume,omitempty"`
	StandardDeviationFactor *intstr.IntOrString `json:"standardDeviationFactor,omitempty"`
}

// FailurePercentage ejects hosts whose failure percentage passes a threshold.
type FailurePercentage struct {
	MinimumHosts  *int64 `json:"minimumHosts,omitempty"`
	RequestVolume *int64 `json:"requestVolume,omitempty"`
	Threshold     *int64 `json:"threshold,omitempty"`
}
