package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestReplacedLabelsAreReported checks CodeLabelReplaced: a label the object set to
// another value than the computed one is replaced and reported, with both values
// and the reason; a value the client carried over from the stored object is not.
func TestReplacedLabelsAreReported(t *testing.T) {
	producer := func(labels string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: p\n  namespace: backend-ns\n  labels: {" + labels + "}\n" +
			"spec:\n  to:\n    - targetRef: {kind: MeshService, name: backend}\n      default: {idleTimeout: 1h}\n"
	}
	type finding struct{ Code, Field, Detail string }
	cases := []struct {
		name string
		s    api.Settings
		in   string
		req  api.Request
		old  string // stored object on UPDATE
		want []finding
	}{
		{name: "role set to another value", s: api.DefaultSettings(), in: producer("kuma.io/policy-role: consumer"),
			want: []finding{{CodeLabelReplaced, "metadata.labels[kuma.io/policy-role]", `"consumer" replaced by "producer": computed from namespace and targets`}}},
		{name: "namespace and empty mesh", s: api.DefaultSettings(), in: producer(`k8s.kuma.io/namespace: frontend-ns, kuma.io/mesh: ""`),
			want: []finding{
				{CodeLabelReplaced, "metadata.labels[k8s.kuma.io/namespace]", `"frontend-ns" replaced by "backend-ns": a policy's is always its namespace`},
				{CodeLabelReplaced, "metadata.labels[kuma.io/mesh]", `"" replaced by "default": empty means the default mesh`},
			}},
		{name: "values equal to the computed ones", s: zoneSettings(),
			in: producer("kuma.io/policy-role: producer, k8s.kuma.io/namespace: backend-ns, kuma.io/mesh: prod")},
		{name: "zone labels are kept (validation rejects a wrong one)", s: zoneSettings(), in: producer("kuma.io/zone: zone-2, kuma.io/origin: zone")},
		{name: "privileged writers are trusted", s: api.DefaultSettings(), in: producer("kuma.io/policy-role: consumer"),
			req: api.Request{Privileged: true}},
		{name: "update carries the stored value over", s: api.DefaultSettings(), in: producer("kuma.io/policy-role: consumer"),
			req: api.Request{Operation: api.OpUpdate}, old: producer("kuma.io/policy-role: consumer")},
		{name: "update sets a new value", s: api.DefaultSettings(), in: producer("kuma.io/policy-role: workload-owner"),
			req: api.Request{Operation: api.OpUpdate}, old: producer("kuma.io/policy-role: producer"),
			want: []finding{{CodeLabelReplaced, "metadata.labels[kuma.io/policy-role]", `"workload-owner" replaced by "producer": computed from namespace and targets`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := obj(t, tc.in)
			req := tc.req
			if req.Operation == "" {
				req.Operation = api.OpCreate
			}
			if tc.old != "" {
				req.Old = obj(t, tc.old)
			}
			var got []finding
			for _, e := range Apply(o, kindOf(t, o), tc.s, req) {
				got = append(got, finding{e.Origin, e.Field, e.Detail})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if again := Apply(o, kindOf(t, o), tc.s, req); len(again) != 0 && req.Old == nil {
				t.Errorf("a defaulted object reports replaced labels: %v", again)
			}
		})
	}
}
