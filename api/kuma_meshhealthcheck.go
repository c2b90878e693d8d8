package api

import "k8s.io/apimachinery/pkg/util/intstr"

// MeshHealthCheckSpec is a MeshHealthCheck: active health checks of outbound
// clusters (`to` only).
type MeshHealthCheckSpec = Policy[MeshHealthCheckConf]

// MeshHealthCheckConf is the conf of MeshHealthCheck's `to` items, after Kuma's
// meshhealthcheck v1alpha1 Conf. Durations are the CRD's strings; Kuma's int32
// fields are int64 here so that the validator, not the decoder, reports a value
// out of range.
type MeshHealthCheckConf struct {
	Interval                     *string             `json:"interval,omitempty"`
	Timeout                      *string             `json:"timeout,omitempty"`
	UnhealthyThreshold           *int64              `json:"unhealthyThreshold,omitempty"`
	HealthyThreshold             *int64              `json:"healthyThreshold,omitempty"`
	InitialJitter                *string             `json:"initialJitter,omitempty"`
	IntervalJitter               *string             `json:"intervalJitter,omitempty"`
	IntervalJitterPercent        *int64              `json:"intervalJitterPercent,omitempty"`
	HealthyPanicThreshold        *intstr.IntOrString `json:"healthyPanicThreshold,omitempty"`
	FailTrafficOnPanic           *bool               `json:"failTrafficOnPanic,omitempty"`
	EventLogPath                 *string             `json:"eventLogPath,omitempty"`
	AlwaysLogHealthCheckFailures *bool               `json:"alwaysLogHealthCheckFailures,omitempty"`
	NoTrafficInterval            *string             `json:"noTrafficInterval,omitempty"`
	TCP                          *TCPHealthCheck     `json:"tcp,omitempty"`
	HTTP                         *HTTPHealthCheck    `json:"http,omitempty"`
	GRPC                         *GRPCHealthCheck    `json:"grpc,omitempty"`
	ReuseConnection              *bool               `json:"reuseConnection,omitempty"`
}

// TCPHealthCheck probes with a raw payload.
type TCPHealthCheck struct {
	Disabled *bool     `json:"disabled,omitempty"`
	Send     *string   `json:"send,omitempty"`
	Receive  *[]string `json:"receive,omitempty"`
}

// HTTPHealthCheck probes a path and expects some statuses.
type HTTPHealthCheck struct {
	Disabled            *bool         `json:"disabled,omitempty"`
	Path                *string       `json:"path,omitempty"`
	RequestHeadersToAdd *HeaderSetAdd `json:"requestHeadersToAdd,omitempty"`
	ExpectedStatuses    *[]int64      `json:"expectedStatuses,omitempty"`
}

// GRPCHealthCheck probes with the gRPC health checking protocol.
type GRPCHealthCheck struct {
	Disabled    *bool   `json:"disabled,omitempty"`
	ServiceName *string `json:"serviceName,omitempty"`
	Authority   *string `json:"authority,omitempty"`
}

// HeaderSetAdd sets or appends headers (MeshHealthCheck's requestHeadersToAdd,
// MeshRateLimit's onRateLimit.headers). The CRD checks names and list shape.
type HeaderSetAdd struct {
	Set *[]HeaderPair `json:"set,omitempty"`
	Add *[]HeaderPair `json:"add,omitempty"`
}

// HeaderPair is one header name and value of a HeaderSetAdd.
type HeaderPair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
