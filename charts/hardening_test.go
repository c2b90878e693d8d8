package charts_test

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// These tests pin what issue 17 asks of the chart for availability under
// failurePolicy Fail; docs/helm.md says what each setting protects against.

// TestNodeSpread: replicas are kept on different nodes by default (a DoNotSchedule
// spread by hostname, per ReplicaSet revision so a rollout cannot deadlock, tainted
// nodes not counted), relaxable with nodeSpread: preferred, replaceable as a whole.
func TestNodeSpread(t *testing.T) {
	for _, c := range []struct {
		name string
		vals map[string]any
		want corev1.UnsatisfiableConstraintAction
	}{
		{"default", nil, corev1.DoNotSchedule},
		{"relaxed", map[string]any{"nodeSpread": "preferred"}, corev1.ScheduleAnyway},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := deployment(t, mustRender(t, c.vals)).Spec.Template.Spec
			if ps.Affinity != nil {
				t.Errorf("affinity = %+v, want none by default", ps.Affinity)
			}
			var host, zone *corev1.TopologySpreadConstraint
			for i, tsc := range ps.TopologySpreadConstraints {
				switch tsc.TopologyKey {
				case "kubernetes.io/hostname":
					host = &ps.TopologySpreadConstraints[i]
				case "topology.kubernetes.io/zone":
					zone = &ps.TopologySpreadConstraints[i]
				}
			}
			if host == nil || zone == nil || len(ps.TopologySpreadConstraints) != 2 {
				t.Fatalf("topologySpreadConstraints = %+v, want hostname and zone", ps.TopologySpreadConstraints)
			}
			if host.WhenUnsatisfiable != c.want || host.MaxSkew != 1 {
				t.Errorf("hostname spread = %s maxSkew %d, want %s maxSkew 1", host.WhenUnsatisfiable, host.MaxSkew, c.want)
			}
			if host.NodeTaintsPolicy == nil || *host.NodeTaintsPolicy != corev1.NodeInclusionPolicyHonor {
				t.Errorf("nodeTaintsPolicy = %v, want Honor: a tainted node must not count as an empty domain", host.NodeTaintsPolicy)
			}
			if !slices.Equal(host.MatchLabelKeys, []string{"pod-template-hash"}) {
				t.Errorf("matchLabelKeys = %v, want pod-template-hash (spread per revision)", host.MatchLabelKeys)
			}
			if host.LabelSelector == nil || host.LabelSelector.MatchLabels["app.kubernetes.io/instance"] != release {
				t.Errorf("hostname spread selector = %+v", host.LabelSelector)
			}
			if zone.WhenUnsatisfiable != corev1.ScheduleAnyway {
				t.Errorf("zone spread = %s, want ScheduleAnyway", zone.WhenUnsatisfiable)
			}
		})
	}
	custom := []any{map[string]any{"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule",
		"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "x"}}}}
	ps := deployment(t, mustRender(t, map[string]any{"topologySpreadConstraints": custom,
		"affinity": map[string]any{"nodeAffinity": map[string]any{}}})).Spec.Template.Spec
	if len(ps.TopologySpreadConstraints) != 1 || ps.TopologySpreadConstraints[0].TopologyKey != "rack" {
		t.Errorf("custom topologySpreadConstraints not used as is: %+v", ps.TopologySpreadConstraints)
	}
	if ps.Affinity == nil || ps.Affinity.NodeAffinity == nil {
		t.Errorf("affinity value not applied: %+v", ps.Affinity)
	}
}

// TestShutdown: a preStop sleep (the kubelet's action: the image has no shell)
// keeps the pod serving while its endpoint goes away, --shutdown-timeout lets
// in-flight requests finish, and the grace period covers both.
func TestShutdown(t *testing.T) {
	for _, c := range []struct {
		name                  string
		vals                  map[string]any
		sleep, timeout, grace int64
	}{
		{"default", nil, 10, 15, 30},
		{"custom", map[string]any{"shutdown": map[string]any{"preStopSleepSeconds": 20, "timeoutSeconds": 40}}, 20, 40, 65},
		{"no preStop", map[string]any{"shutdown": map[string]any{"preStopSleepSeconds": 0, "timeoutSeconds": 15}}, 0, 15, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := deployment(t, mustRender(t, c.vals)).Spec.Template.Spec
			ctr := ps.Containers[0]
			if c.sleep == 0 {
				if ctr.Lifecycle != nil {
					t.Errorf("lifecycle = %+v, want none with preStopSleepSeconds 0", ctr.Lifecycle)
				}
			} else {
				l := ctr.Lifecycle
				if l == nil || l.PreStop == nil || l.PreStop.Sleep == nil || l.PreStop.Sleep.Seconds != c.sleep {
					t.Fatalf("preStop = %+v, want sleep %ds", l, c.sleep)
				}
				if l.PreStop.Exec != nil || l.PreStop.HTTPGet != nil {
					t.Errorf("preStop has another action: %+v", l.PreStop)
				}
			}
			if g := ps.TerminationGracePeriodSeconds; g == nil || *g != c.grace {
				t.Errorf("terminationGracePeriodSeconds = %v, want %d", g, c.grace)
			}
			if want := "--shutdown-timeout=" + itoa(c.timeout) + "s"; !slices.Contains(ctr.Args, want) {
				t.Errorf("args lack %s: %v", want, ctr.Args)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestNetworkPolicy: on by default, ingress only to the webhook and metrics ports
// (by the container ports' names), sources narrowed by value, off by value, and
// absent when no pods are rendered.
func TestNetworkPolicy(t *testing.T) {
	const key = "NetworkPolicy/meshguard"
	m := mustRender(t, nil)
	np := get[*networkingv1.NetworkPolicy](t, m, key)
	if np.Namespace != namespace || !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) {
		t.Errorf("namespace %q policyTypes %v", np.Namespace, np.Spec.PolicyTypes)
	}
	d := deployment(t, m)
	if got, want := mapKeys(np.Spec.PodSelector.MatchLabels), mapKeys(d.Spec.Selector.MatchLabels); !slices.Equal(got, want) {
		t.Errorf("podSelector %v, deployment selector %v", got, want)
	}
	containerPorts := map[string]bool{}
	for _, p := range d.Spec.Template.Spec.Containers[0].Ports {
		containerPorts[p.Name] = true
	}
	ports := npPorts(t, np)
	if !slices.Equal(ports, []string{"metrics", "webhook"}) {
		t.Errorf("ingress ports = %v, want metrics and webhook only", ports)
	}
	for _, p := range ports {
		if !containerPorts[p] {
			t.Errorf("ingress port %q is no container port", p)
		}
	}
	for _, r := range np.Spec.Ingress {
		switch r.Ports[0].Port.String() {
		case "webhook":
			if len(r.From) != 0 {
				t.Errorf("default webhook rule restricts sources: %+v", r.From)
			}
		case "metrics":
			// The metrics port admits the scraper only: kube-prometheus' Prometheus
			// pods in namespace monitoring, both selectors in one peer.
			if len(r.From) != 1 || r.From[0].NamespaceSelector == nil || r.From[0].PodSelector == nil ||
				r.From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "monitoring" ||
				r.From[0].PodSelector.MatchLabels["app.kubernetes.io/name"] != "prometheus" {
				t.Errorf("default metrics sources %+v, want the monitoring namespace's prometheus pods", r.From)
			}
		}
	}
	m = mustRender(t, map[string]any{"networkPolicy": map[string]any{"metricsScraper": map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "observability"}},
		"podSelector":       map[string]any{"matchLabels": map[string]any{"app": "vmagent"}}}}})
	for _, r := range get[*networkingv1.NetworkPolicy](t, m, key).Spec.Ingress {
		if r.Ports[0].Port.String() == "metrics" && (len(r.From) != 1 ||
			r.From[0].NamespaceSelector.MatchLabels["team"] != "observability" || r.From[0].PodSelector.MatchLabels["app"] != "vmagent" ||
			len(r.From[0].NamespaceSelector.MatchLabels) != 1 || len(r.From[0].PodSelector.MatchLabels) != 1) {
			t.Errorf("metricsScraper: metrics sources %+v", r.From)
		}
	}

	m = mustRender(t, map[string]any{"networkPolicy": map[string]any{"enabled": true,
		"apiServerCIDRs": []any{"10.0.0.0/24", "fd00::/64"},
		"metricsFrom": []any{map[string]any{"namespaceSelector": map[string]any{
			"matchLabels": map[string]any{"kubernetes.io/metadata.name": "monitoring"}}}}}})
	np = get[*networkingv1.NetworkPolicy](t, m, key)
	for _, r := range np.Spec.Ingress {
		switch r.Ports[0].Port.String() {
		case "webhook":
			var cidrs []string
			for _, f := range r.From {
				if f.IPBlock == nil || f.PodSelector != nil || f.NamespaceSelector != nil {
					t.Errorf("webhook source %+v, want ipBlock only", f)
					continue
				}
				cidrs = append(cidrs, f.IPBlock.CIDR)
			}
			if !slices.Equal(cidrs, []string{"10.0.0.0/24", "fd00::/64"}) {
				t.Errorf("webhook sources %v", cidrs)
			}
		case "metrics":
			if len(r.From) != 1 || r.From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "monitoring" {
				t.Errorf("metrics sources %+v", r.From)
			}
		}
	}

	// With failOpenUntilReady the self-check reaches the webhook port from
	// meshguard's own pods: narrowed sources must still let it through.
	m = mustRender(t, map[string]any{"failOpenUntilReady": true,
		"networkPolicy": map[string]any{"enabled": true, "apiServerCIDRs": []any{"10.0.0.0/24"}}})
	np = get[*networkingv1.NetworkPolicy](t, m, key)
	selfCheck := false
	for _, r := range np.Spec.Ingress {
		for _, f := range r.From {
			if r.Ports[0].Port.String() == "webhook" && f.PodSelector != nil {
				selfCheck = maps.Equal(f.PodSelector.MatchLabels, d.Spec.Selector.MatchLabels)
			}
		}
	}
	if !selfCheck {
		t.Errorf("failOpenUntilReady: webhook sources %+v do not admit meshguard's pods", np.Spec.Ingress)
	}

	for name, vals := range map[string]map[string]any{
		"disabled":      {"networkPolicy": map[string]any{"enabled": false}},
		"no deployment": {"webhook": map[string]any{"url": "https://localhost:9443"}, "deployment": map[string]any{"enabled": false}},
	} {
		if mustRender(t, vals).has(key) {
			t.Errorf("%s: NetworkPolicy rendered", name)
		}
	}
}

func npPorts(t *testing.T, np *networkingv1.NetworkPolicy) []string {
	t.Helper()
	var out []string
	for _, r := range np.Spec.Ingress {
		for _, p := range r.Ports {
			if p.Port == nil || p.Protocol == nil || *p.Protocol != corev1.ProtocolTCP || p.EndPort != nil {
				t.Errorf("port %+v, want one named TCP port", p)
				continue
			}
			out = append(out, p.Port.String())
		}
	}
	slices.Sort(out)
	return out
}

// TestMetricsPort: the metrics port value moves the container port, the bind
// address and (by name) the NetworkPolicy together.
func TestMetricsPort(t *testing.T) {
	m := mustRender(t, map[string]any{"metrics": map[string]any{"port": 9100}})
	c := deployment(t, m).Spec.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "--metrics-bind-address=:9100") {
		t.Errorf("args = %v", c.Args)
	}
	found := false
	for _, p := range c.Ports {
		if p.Name == "metrics" {
			found = p.ContainerPort == 9100
		}
	}
	if !found {
		t.Errorf("metrics container port = %+v, want 9100", c.Ports)
	}
}

// TestResources: CPU and memory requests and a memory limit by default, and no CPU
// limit (throttling would show as admission latency); a CPU limit can be set.
func TestResources(t *testing.T) {
	r := deployment(t, mustRender(t, nil)).Spec.Template.Spec.Containers[0].Resources
	if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
		t.Errorf("resources = %+v, want cpu and memory requests and a memory limit", r)
	}
	if _, ok := r.Limits[corev1.ResourceCPU]; ok {
		t.Errorf("CPU limit %v by default", r.Limits.Cpu())
	}
	if r.Limits.Memory().Cmp(*r.Requests.Memory()) < 0 {
		t.Errorf("memory limit %v below request %v", r.Limits.Memory(), r.Requests.Memory())
	}
	r = deployment(t, mustRender(t, map[string]any{"resources": map[string]any{
		"requests": map[string]any{"cpu": "200m", "memory": "128Mi"},
		"limits":   map[string]any{"cpu": "1", "memory": "512Mi"}}})).Spec.Template.Spec.Containers[0].Resources
	if r.Limits.Cpu().String() != "1" || r.Limits.Memory().String() != "512Mi" {
		t.Errorf("resources values not applied: %+v", r)
	}
}

// TestTimeoutBounds: the schema keeps timeoutSeconds within 1-5 and says so.
func TestTimeoutBounds(t *testing.T) {
	for _, v := range []int{0, 6, 30} {
		_, err := renderChart(t, map[string]any{"timeoutSeconds": v}, namespace)
		if err == nil || !strings.Contains(err.Error(), "timeoutSeconds") {
			t.Errorf("timeoutSeconds %d: err = %v, want a schema error naming timeoutSeconds", v, err)
		}
	}
	for _, v := range []int{1, 5} {
		mut, val := webhooks(t, mustRender(t, map[string]any{"timeoutSeconds": v}))
		if *mut.timeout != int32(v) || *val.timeout != int32(v) {
			t.Errorf("timeoutSeconds %d rendered as %d/%d", v, *mut.timeout, *val.timeout)
		}
	}
}
