package api

import "k8s.io/apimachinery/pkg/util/intstr"

// MeshFaultInjectionSpec is a MeshFaultInjection: HTTP faults injected on inbound
// traffic (`from`, `rules`) or, for gateways, outbound (`to`).
type MeshFaultInjectionSpec = Policy[MeshFaultInjectionConf]

// MeshFaultInjectionConf is the conf of MeshFaultInjection's items, after Kuma's
// meshfaultinjection v1alpha1 Conf: a list of HTTP faults.
type MeshFaultInjectionConf struct {
	HTTP *[]FaultInjectionHTTP `json:"http,omitempty"`
}

// FaultInjectionHTTP is one fault: any of an abort, a delay and a bandwidth limit,
// each applied to a percentage of requests.
type FaultInjectionHTTP struct {
	Abort             *FaultAbort             `json:"abort,omitempty"`
	Delay             *FaultDelay             `json:"delay,omitempty"`
	ResponseBandwidth *FaultResponseBandwidth `json:"responseBandwidth,omitempty"`
}

// FaultAbort answers requests with HTTPStatus. HTTPStatus is int64 so that an
// out-of-range value reaches the rule that reports it; absent counts as 0, as in Kuma.
type FaultAbort struct {
	HTTPStatus *int64              `json:"httpStatus,omitempty"`
	Percentage *intstr.IntOrString `json:"percentage,omitempty"`
}

// FaultDelay delays requests by Value, a duration string ("5s").
type FaultDelay struct {
	Value      *string             `json:"value,omitempty"`
	Percentage *intstr.IntOrString `json:"percentage,omitempty"`
}

// FaultResponseBandwidth limits the response bandwidth to Limit ("10kbps").
type FaultResponseBandwidth struct {
	Limit      *string             `json:"limit,omitempty"`
	Percentage *intstr.IntOrString `json:"percentage,omitempty"`
}
