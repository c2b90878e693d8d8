package api

// DataplaneSpec is the spec of a Dataplane: Kuma's proto Dataplane message as JSON.
// On Kubernetes Kuma writes Dataplanes itself from pods; users write them for
// Universal-style proxies and delegated gateways. Its CRD leaves spec unchecked.
type DataplaneSpec struct {
	Networking *DataplaneNetworking `json:"networking,omitempty"`
	Metrics    *MeshMetricsBackend  `json:"metrics,omitempty"`
	Probes     *DataplaneProbes     `json:"probes,omitempty"`
}

// DataplaneNetworking is the proxy's address, inbounds, outbounds, gateway role,
// transparent proxying, admin port and zone listeners.
type DataplaneNetworking struct {
	Address             string                `json:"address,omitempty"`
	AdvertisedAddress   string                `json:"advertisedAddress,omitempty"`
	Inbound             []DataplaneInbound    `json:"inbound,omitempty"`
	Outbound            []DataplaneOutbound   `json:"outbound,omitempty"`
	Gateway             *DataplaneGateway     `json:"gateway,omitempty"`
	TransparentProxying *DataplaneTransparent `json:"transparentProxying,omitempty"`
	Admin               *DataplaneAdmin       `json:"admin,omitempty"`
	Listeners           []DataplaneListener   `json:"listeners,omitempty"`
}

// DataplaneInbound is one inbound: the port the proxy listens on and the
// application's address and port behind it.
type DataplaneInbound struct {
	Port           uint32              `json:"port,omitempty"`
	ServicePort    uint32              `json:"servicePort,omitempty"`
	ServiceAddress string              `json:"serviceAddress,omitempty"`
	Address        string              `json:"address,omitempty"`
	Tags           map[string]string   `json:"tags,omitempty"`
	Health         Free                `json:"health,omitempty"`
	ServiceProbe   *DataplaneProbeConf `json:"serviceProbe,omitempty"`
	State          ProtoEnum           `json:"state,omitempty"`
	Name           string              `json:"name,omitempty"`
	Protocol       string              `json:"protocol,omitempty"`
}

// DataplaneProbeConf is an inbound's active health check (durations in the proto
// JSON form, seconds with an "s" suffix).
type DataplaneProbeConf struct {
	Interval           *string `json:"interval,omitempty"`
	Timeout            *string `json:"timeout,omitempty"`
	UnhealthyThreshold *uint32 `json:"unhealthyThreshold,omitempty"`
	HealthyThreshold   *uint32 `json:"healthyThreshold,omitempty"`
	TCP                Free    `json:"tcp,omitempty"`
}

// DataplaneOutbound is one outbound: a local port that reaches a service, named by
// tags (old style) or by a backendRef.
type DataplaneOutbound struct {
	Address    string               `json:"address,omitempty"`
	Port       uint32               `json:"port,omitempty"`
	Tags       map[string]string    `json:"tags,omitempty"`
	BackendRef *DataplaneBackendRef `json:"backendRef,omitempty"`
}

// DataplaneBackendRef names the service an outbound reaches.
type DataplaneBackendRef struct {
	Kind   string            `json:"kind,omitempty"`
	Name   string            `json:"name,omitempty"`
	Port   uint32            `json:"port,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

// DataplaneGateway makes the proxy a gateway: DELEGATED (default) or BUILTIN.
type DataplaneGateway struct {
	Tags map[string]string `json:"tags,omitempty"`
	Type ProtoEnum         `json:"type,omitempty"`
}

// DataplaneTransparent is the proxy's transparent proxying set-up.
type DataplaneTransparent struct {
	RedirectPortInbound  uint32               `json:"redirectPortInbound,omitempty"`
	RedirectPortOutbound uint32               `json:"redirectPortOutbound,omitempty"`
	DirectAccessServices []string             `json:"directAccessServices,omitempty"`
	ReachableServices    []string             `json:"reachableServices,omitempty"`
	IPFamilyMode         ProtoEnum            `json:"ipFamilyMode,omitempty"`
	ReachableBackends    *DataplaneReachables `json:"reachableBackends,omitempty"`
}

// DataplaneReachables lists the backends the proxy may reach.
type DataplaneReachables struct {
	Refs []DataplaneReachableRef `json:"refs,omitempty"`
}

// DataplaneReachableRef is one reachable backend, by name (and namespace) or labels.
type DataplaneReachableRef struct {
	Kind      string            `json:"kind,omitempty"`
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Port      *uint32           `json:"port,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// DataplaneAdmin is the Envoy admin port.
type DataplaneAdmin struct {
	Port uint32 `json:"port,omitempty"`
}

// DataplaneListener is a zone ingress or egress listener of the proxy.
type DataplaneListener struct {
	Type    ProtoEnum `json:"type,omitempty"`
	Address string    `json:"address,omitempty"`
	Port    uint32    `json:"port,omitempty"`
	Name    string    `json:"name,omitempty"`
	State   ProtoEnum `json:"state,omitempty"`
}

// DataplaneProbes is the virtual probes endpoint Kuma rewrites pod probes to.
type DataplaneProbes struct {
	Port      uint32                   `json:"port,omitempty"`
	Endpoints []DataplaneProbeEndpoint `json:"endpoints,omitempty"`
}

// DataplaneProbeEndpoint maps an application's probe path and port.
type DataplaneProbeEndpoint struct {
	InboundPort uint32 `json:"inboundPort,omitempty"`
	InboundPath string `json:"inboundPath,omitempty"`
	Path        string `json:"path,omitempty"`
}

// DataplaneGatewayTypes are the gateway types of Kuma's proto, by number.
func DataplaneGatewayTypes() ProtoEnumNames { return ProtoEnumNames{"DELEGATED", "BUILTIN"} }

// DataplaneInboundStates are an inbound's states in Kuma's proto, by number.
func DataplaneInboundStates() ProtoEnumNames { return ProtoEnumNames{"Ready", "NotReady", "Ignored"} }

// DataplaneListenerStates are a zone listener's states in Kuma's proto, by number.
func DataplaneListenerStates() ProtoEnumNames { return ProtoEnumNames{"Ready", "NotReady"} }

// DataplaneIPFamilyModes are the transparent proxy's IP family modes, by number.
func DataplaneIPFamilyModes() ProtoEnumNames {
	return ProtoEnumNames{"UnSpecified", "DualStack", "IPv4", "IPv6"}
}

// DataplaneListenerTypes are the zone listener types of Kuma's proto, by number.
func DataplaneListenerTypes() ProtoEnumNames {
	return ProtoEnumNames{"Unspecified", "ZoneIngress", "ZoneEgress"}
}
