package validate

import "testing"

// lbTo is a MeshLoadBalancingStrategy with top-level targetRef top (flow YAML) and one
// `to` item of destination ref whose default is def (flow YAML).
func lbTo(top, ref, def string) string {
	return "  targetRef: " + top + "\n  to:\n    - targetRef: " + ref + "\n      default: " + def + "\n"
}

func TestMeshLoadBalancingStrategyConf(t *testing.T) {
	c := func(f ...string) []got { return shapingErr(CodeLoadBalancingConf, f...) }
	const mesh, svc, route = "{kind: Mesh}", "{kind: MeshService, name: backend}", "{kind: MeshHTTPRoute, name: r}"
	const gw = "{kind: MeshGateway, name: edge}"
	const d = "spec.to[0].default"
	lb := func(def string) string { return lbTo(mesh, svc, def) }
	runShapingCases(t, "MeshLoadBalancingStrategy", []shapingCase{
		{"valid", lb(`{loadBalancer: {type: RingHash, ringHash: {hashPolicies: [{type: Header, header: {name: x}}, {type: Cookie, cookie: {name: c, path: /}}, {type: SourceIP, connection: {sourceIP: true}}]}}, localityAwareness: {localZone: {affinityTags: [{key: a, weight: 2}, {key: b, weight: 1}]}, crossZone: {failover: [{from: {zones: [z1]}, to: {type: Only, zones: [z2]}}, {to: {type: Any}}], failoverThreshold: {percentage: "12.5"}}}}`), nil},
		{"hash policy without its section", lb(`{hashPolicies: [{type: Header}, {type: Cookie}, {type: Connection}, {type: QueryParameter}, {type: FilterState}]}`),
			c(d+".hashPolicies[0].header", d+".hashPolicies[1].cookie", d+".hashPolicies[2].connection", d+".hashPolicies[3].queryParameter", d+".hashPolicies[4].filterState")},
		{"relative cookie path", lb(`{loadBalancer: {type: Maglev, maglev: {hashPolicies: [{type: Cookie, cookie: {name: c, path: rel}}]}}}`), c(d + ".loadBalancer.maglev.hashPolicies[0].cookie.path")},
		{"other balancer's section ignored", lb(`{loadBalancer: {type: RoundRobin, maglev: {hashPolicies: [{type: Header}]}}}`), nil},
		{"negative bias", lb(`{loadBalancer: {type: LeastRequest, leastRequest: {activeRequestBias: "-1.5"}}}`), c(d + ".loadBalancer.leastRequest.activeRequestBias")},
		{"bias not a number", lb(`{loadBalancer: {type: LeastRequest, leastRequest: {activeRequestBias: "x"}}}`), c(d + ".loadBalancer.leastRequest.activeRequestBias")},
		{"hash policies twice", lb(`{hashPolicies: [{type: Header, header: {name: x}}], loadBalancer: {type: Maglev, maglev: {hashPolicies: [{type: Header, header: {name: x}}]}, ringHash: {hashPolicies: []}}}`),
			c(d+".loadBalancer.maglev.hashPolicies", d+".loadBalancer.ringHash.hashPolicies")},
		{"zero weight and empty key", lb(`{localityAwareness: {localZone: {affinityTags: [{key: a, weight: 0}, {key: "", weight: 1}]}}}`),
			c(d+".localityAwareness.localZone.affinityTags[0].weight", d+".localityAwareness.localZone.affinityTags[1].key")},
		{"weights partly set", lb(`{localityAwareness: {localZone: {affinityTags: [{key: a, weight: 1}, {key: b}]}}}`), c(d + ".localityAwareness.localZone.affinityTags")},
		{"no weights", lb(`{localityAwareness: {localZone: {affinityTags: [{key: a}, {key: b}]}}}`), nil},
		{"failover zones against type", lb(`{localityAwareness: {crossZone: {failover: [{from: {zones: []}, to: {type: None, zones: [z]}}, {from: {zones: [z, ""]}, to: {type: AnyExcept}}]}}}`),
			c(d+".localityAwareness.crossZone.failover[0].from.zones", d+".localityAwareness.crossZone.failover[0].to.zones",
				d+".localityAwareness.crossZone.failover[1].from.zones[1]", d+".localityAwareness.crossZone.failover[1].to.zones")},
		{"threshold zero", lb(`{localityAwareness: {crossZone: {failoverThreshold: {percentage: 0}}}}`), c(d + ".localityAwareness.crossZone.failoverThreshold.percentage")},
		{"threshold not a number", lb(`{localityAwareness: {crossZone: {failoverThreshold: {percentage: hello}}}}`), c(d + ".localityAwareness.crossZone.failoverThreshold.percentage")},
		{"cross zone for a MeshService section", lbTo(mesh, "{kind: MeshService, name: backend, sectionName: http}", `{localityAwareness: {crossZone: {failover: [{to: {type: Any}}]}}}`),
			c(d + ".localityAwareness.crossZone")},
		{"route takes hash policies", lbTo(mesh, route, `{hashPolicies: [{type: Header}]}`), c(d + ".hashPolicies[0].header")},
		{"route refuses balancer and locality", lbTo(mesh, route, `{loadBalancer: {type: Random}, localityAwareness: {disabled: true}}`),
			c(d+".loadBalancer", d+".localityAwareness")},
		{"gateway balancer for a service", lbTo(gw, svc, `{loadBalancer: {type: Random}}`), c("spec.to[0].targetRef.kind")},
		{"gateway balancer for the mesh", lbTo(gw, mesh, `{loadBalancer: {type: Random}}`), nil},
		{"external service needs a Mesh top", lbTo("{kind: Dataplane, labels: {app: web}}", "{kind: MeshExternalService, name: ext}", `{}`), []got{e(CodeToKind, "spec.to[0].targetRef.kind")}},
		{"gateway locality for a service", lbTo(gw, svc, `{localityAwareness: {disabled: true}}`), nil},
	})
}

// ppMods is a MeshProxyPatch with the given appendModifications (block YAML lines,
// indented by six spaces).
func ppMods(mods string) string {
	return "  targetRef: {kind: Mesh}\n  default:\n    appendModifications:\n" + mods
}

func TestMeshProxyPatchConf(t *testing.T) {
	c := func(f ...string) []got { return shapingErr(CodeProxyPatchConf, f...) }
	const m = "spec.default.appendModifications"
	runShapingCases(t, "MeshProxyPatch", []shapingCase{
		{"valid", ppMods(`      - cluster: {operation: Add, value: "name: xyz\nconnectTimeout: 5s"}
      - cluster: {operation: Patch, match: {name: xyz}, value: "connectTimeout: 1s"}
      - cluster: {operation: Remove, match: {name: xyz}}
      - listener: {operation: Patch, match: {name: l}, jsonPatches: [{op: replace, path: /name, value: x}, {op: copy, from: /a, path: /b}, {op: remove, path: /a}]}
      - httpFilter: {operation: AddBefore, match: {name: envoy.filters.http.router}, value: "name: envoy.filters.http.lua\ntypedConfig:\n  '@type': type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua\n  inline_code: x"}
      - networkFilter: {operation: AddFirst, value: "name: envoy.filters.network.tcp_proxy"}
      - virtualHost: {operation: Add, match: {routeConfigurationName: r}, value: "name: vh\ndomains: ['*']"}
`), nil},
		{"no modification", "  targetRef: {kind: Mesh}\n  default: {}\n", c(m)},
		{"empty modification", ppMods("      - {}\n"), c(m + "[0]")},
		{"two sections", ppMods("      - cluster: {operation: Remove}\n        listener: {operation: Remove}\n"), c(m + "[0]")},
		{"value not YAML or JSON", ppMods("      - cluster: {operation: Add, value: '{'}\n      - listener: {operation: Patch, value: '{'}\n"),
			c(m+"[0].cluster.value", m+"[1].listener.value")},
		{"value of the wrong type", ppMods("      - cluster: {operation: Add, value: 'connectTimeout: 5'}\n"), c(m + "[0].cluster.value")},
		{"added value breaks Envoy's constraints", ppMods("      - listener: {operation: Add, value: 'address: {socketAddress: {address: 0.0.0.0, portValue: 99999}}'}\n"), c(m + "[0].listener.value")},
		{"Go duration syntax, as Kuma's jsonpb reads it", ppMods(`      - cluster: {operation: Patch, match: {name: a}, value: "connectTimeout: 5m\ncommonLbConfig: {updateMergeWindow: 1h30m}"}
      - networkFilter: {operation: AddFirst, value: "name: hcm\ntypedConfig: {'@type': type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager, statPrefix: s, requestTimeout: 2m}"}
`), nil},
		{"duration that does not parse", ppMods("      - cluster: {operation: Patch, match: {name: a}, value: 'connectTimeout: banana'}\n"), c(m + "[0].cluster.value")},
		{"add with match", ppMods("      - cluster: {operation: Add, match: {name: a}, value: 'name: a'}\n"), c(m + "[0].cluster.match")},
		{"add without value", ppMods("      - listener: {operation: Add}\n"), c(m + "[0].listener.value")},
		{"remove with value", ppMods("      - cluster: {operation: Remove, value: 'name: a'}\n"), c(m + "[0].cluster.value")},
		{"patch with neither", ppMods("      - cluster: {operation: Patch}\n"), c(m + "[0].cluster")},
		{"patch with both", ppMods("      - cluster: {operation: Patch, value: '{}', jsonPatches: [{op: remove, path: /a}]}\n"), c(m + "[0].cluster")},
		{"filter patch without name", ppMods("      - httpFilter: {operation: Patch, value: '{}'}\n"), c(m + "[0].httpFilter.match.name")},
		{"filter add before without name", ppMods("      - networkFilter: {operation: AddBefore, match: {origin: inbound}, value: 'name: x'}\n"), c(m + "[0].networkFilter.match.name")},
		{"virtual host add with name", ppMods(`      - virtualHost: {operation: Add, match: {name: vh}, value: '{"name": "vh", "domains": ["a"]}'}` + "\n"), c(m + "[0].virtualHost.match.name")},
		{"json patches", ppMods("      - cluster: {operation: Patch, jsonPatches: [{op: add, path: /a}, {op: move, path: /a}, {op: remove, path: /a, from: /b, value: 1}, {op: remove, path: /}]}\n"),
			c(m+"[0].cluster.jsonPatches[0].value", m+"[0].cluster.jsonPatches[1].from", m+"[0].cluster.jsonPatches[2].from",
				m+"[0].cluster.jsonPatches[2].value", m+"[0].cluster.jsonPatches[3].path")},
		// The API server drops the null before Kuma's webhook sees the object.
		{"json patch value null is no value", ppMods("      - cluster: {operation: Patch, jsonPatches: [{op: add, path: /a, value: null}, {op: remove, path: /b, value: null}]}\n"),
			c(m + "[0].cluster.jsonPatches[0].value")},
	})
}
