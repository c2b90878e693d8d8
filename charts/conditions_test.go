package charts_test

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
)

// request is one admission request as the API server sees it before calling a webhook.
type request struct {
	op     admission.Operation
	user   string
	groups []string
}

// calls reports whether the API server would call the webhook for r, evaluating its
// rendered matchConditions with kube-apiserver's own matcher (k8s.io/apiserver), so
// a condition that does not compile, or errors, fails here as it would there.
func calls(t *testing.T, acc webhook.WebhookAccessor, r request) bool {
	t.Helper()
	compiler := plugincel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	gvk := schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"}
	gvr := schema.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtimeouts"}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
		"metadata": map[string]any{"name": "t", "namespace": "app", "labels": map[string]any{"kuma.io/origin": "global"}}}}
	var newObj, oldObj runtime.Object = obj, obj.DeepCopy()
	if r.op == admission.Delete {
		newObj = nil
	}
	attrs := admission.NewAttributesRecord(newObj, oldObj, gvk, "app", "t", gvr, "", r.op, nil, false,
		&user.DefaultInfo{Name: r.user, Groups: r.groups})
	va := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(newObj), VersionedOldObject: admission.NewLazyObject(oldObj)}
	res := acc.GetCompiledMatcher(compiler).Match(context.Background(), va, nil, nil)
	if res.Error != nil {
		t.Fatalf("%s: matchConditions error for %+v: %v", acc.GetName(), r, res.Error)
	}
	return res.Matches
}

const (
	kumaCP = "system:serviceaccount:kuma-system:kuma-control-plane"
	gc     = "system:serviceaccount:kube-system:generic-garbage-collector"
	nsCtrl = "system:serviceaccount:kube-system:namespace-controller"
)

// TestMatchConditions: each condition only leaves out requests whose answer is known
// without asking meshguard. The mutating webhook skips privileged users (meshguard
// writes nothing for them); the validating webhook, which sees DELETE only in mode
// zone, skips deletes by the users whose deletes are never refused there. Everyone
// else, and every create and update, is still sent.
func TestMatchConditions(t *testing.T) {
	alice := request{op: admission.Create, user: "alice", groups: []string{"system:authenticated"}}
	with := func(r request, op admission.Operation, u string, groups ...string) request {
		r.op, r.user = op, u
		if groups != nil {
			r.groups = groups
		}
		return r
	}
	for _, c := range []struct {
		name     string
		vals     map[string]any
		webhook  string
		req      request
		wantCall bool
	}{
		{"mutating: a user's create", nil, "mutating", alice, true},
		{"mutating: a user's update", nil, "mutating", with(alice, admission.Update, "alice"), true},
		{"mutating: the control plane's sync", nil, "mutating", with(alice, admission.Create, kumaCP), false},
		{"mutating: a privileged group", map[string]any{"privilegedGroups": []any{"mesh-admins"}}, "mutating",
			with(alice, admission.Update, "bob", "system:authenticated", "mesh-admins"), false},
		{"mutating: no privileged users, everyone is sent", map[string]any{"privilegedUsers": []any{}}, "mutating",
			with(alice, admission.Create, kumaCP), true},
		{"validating standalone: the control plane's create is validated", nil, "validating", with(alice, admission.Create, kumaCP), true},
		{"validating zone: a user's delete", zoneVals(nil), "validating", with(alice, admission.Delete, "alice"), true},
		{"validating zone: a user's update", zoneVals(nil), "validating", with(alice, admission.Update, "alice"), true},
		{"validating zone: the garbage collector's delete", zoneVals(nil), "validating", with(alice, admission.Delete, gc), false},
		{"validating zone: the namespace controller's delete", zoneVals(nil), "validating", with(alice, admission.Delete, nsCtrl), false},
		{"validating zone: the control plane's delete", zoneVals(nil), "validating", with(alice, admission.Delete, kumaCP), false},
		{"validating zone: the control plane's create is validated", zoneVals(nil), "validating", with(alice, admission.Create, kumaCP), true},
		{"validating zone: the garbage collector's update is validated", zoneVals(nil), "validating", with(alice, admission.Update, gc), true},
		{"validating zone: the control plane of another system namespace", zoneVals(map[string]any{"systemNamespace": "mesh-system"}),
			"validating", with(alice, admission.Delete, "system:serviceaccount:mesh-system:kuma-control-plane"), false},
		{"validating zone: kuma-system's control plane when the mesh is elsewhere", zoneVals(map[string]any{"systemNamespace": "mesh-system", "privilegedUsers": []any{}}),
			"validating", with(alice, admission.Delete, kumaCP), true},
		{"validating zone: a privileged group's delete", zoneVals(map[string]any{"privilegedGroups": []any{"mesh-admins"}}), "validating",
			with(alice, admission.Delete, "bob", "mesh-admins"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustRender(t, c.vals)
			var acc webhook.WebhookAccessor
			if c.webhook == "mutating" {
				mc := get[*admissionv1.MutatingWebhookConfiguration](t, m, mutatingKey)
				acc = webhook.NewMutatingWebhookAccessor("m", mc.Name, &mc.Webhooks[0])
			} else {
				vc := get[*admissionv1.ValidatingWebhookConfiguration](t, m, validatingKey)
				acc = webhook.NewValidatingWebhookAccessor("v", vc.Name, &vc.Webhooks[0])
			}
			if got := calls(t, acc, c.req); got != c.wantCall {
				t.Errorf("API server calls %s for %+v: %v, want %v", acc.GetName(), c.req, got, c.wantCall)
			}
		})
	}
}

// TestMatchConditionsOnlyWhereNeeded: conditions are rendered only where they leave
// something out, so the default validating webhook has none outside mode zone.
func TestMatchConditionsOnlyWhereNeeded(t *testing.T) {
	vc := get[*admissionv1.ValidatingWebhookConfiguration](t, mustRender(t, nil), validatingKey)
	if n := len(vc.Webhooks[0].MatchConditions); n != 0 {
		t.Errorf("validating webhook outside mode zone has %d matchConditions", n)
	}
	mc := get[*admissionv1.MutatingWebhookConfiguration](t, mustRender(t, map[string]any{"privilegedUsers": []any{}}), mutatingKey)
	if n := len(mc.Webhooks[0].MatchConditions); n != 0 {
		t.Errorf("mutating webhook without privileged users has %d matchConditions", n)
	}
}

func zoneVals(extra map[string]any) map[string]any {
	v := map[string]any{"mode": "zone", "zone": "zone-1"}
	for k, x := range extra {
		v[k] = x
	}
	return v
}
