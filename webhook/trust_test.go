package webhook

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/meshguard/meshguard/api"
)

// trustSettings is a federated zone whose system namespace is not Kuma's default,
// so that the trusted control plane account can only come from --system-namespace.
func trustSettings(mode api.Mode) api.Settings {
	s := api.DefaultSettings()
	s.Mode, s.SystemNamespace = mode, "mesh-system"
	if mode == api.ModeZone {
		s.Zone = "zone-1"
	}
	return s
}

// trustEngine builds Handlers the way Run does (PrivilegedSets), with one extra
// trusted user and group from the flags.
func trustEngine(mode api.Mode) *Handlers {
	o := Options{Settings: trustSettings(mode), PrivilegedUsers: []string{"kds-admin"}, PrivilegedGroups: []string{"mesh-admins"}}
	users, groups := PrivilegedSets(o)
	return &Handlers{Registry: api.DefaultRegistry(), Settings: o.Settings, Log: logr.Discard(),
		PrivilegedUsers: users, PrivilegedGroups: groups}
}

// mtpWith is a valid MeshTrafficPermission in ns with the given labels
// ("k=v" pairs).
func mtpWith(ns string, labels ...string) *unstructured.Unstructured {
	l := map[string]any{}
	for _, kv := range labels {
		k, v, _ := strings.Cut(kv, "=")
		l[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
		"metadata": map[string]any{"name": "allow-all", "namespace": ns, "labels": l},
		"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh"},
			"from": []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Allow"}}}},
	}}
}

// withLabels is obj with its labels replaced ("k=v" pairs; "k=" removes nothing,
// it sets an empty value).
func withLabels(obj *unstructured.Unstructured, labels ...string) *unstructured.Unstructured {
	out := obj.DeepCopy()
	l := map[string]string{}
	for _, kv := range labels {
		k, v, _ := strings.Cut(kv, "=")
		l[k] = v
	}
	out.SetLabels(l)
	return out
}

// Labels of an object the global control plane synced to zone-1 (the ones Kuma's
// KDS writes), and of one the zone's users created.
var (
	syncedLabels = []string{"kuma.io/origin=global", "kuma.io/mesh=default"}
	zoneLabels   = []string{"kuma.io/origin=zone", "kuma.io/zone=zone-1", "kuma.io/env=kubernetes", "kuma.io/mesh=default"}
)

// cause is one field of a denial and its rule code.
type cause struct{ Field, Code string }

func causesOf(resp *admissionv1.AdmissionResponse) []cause {
	if resp.Allowed || resp.Result == nil || resp.Result.Details == nil {
		return nil
	}
	var out []cause
	for _, c := range resp.Result.Details.Causes {
		code := ""
		if i := strings.LastIndex(c.Message, "[MG"); i >= 0 {
			code = strings.TrimSuffix(c.Message[i+1:], "]")
		}
		out = append(out, cause{c.Field, code})
	}
	return out
}

// reviewAs is review with the user's groups.
func reviewAs(t *testing.T, op admissionv1.Operation, obj, old *unstructured.Unstructured, user string, groups ...string) []byte {
	t.Helper()
	var rev admissionv1.AdmissionReview
	if err := json.Unmarshal(review(t, op, obj, old, user), &rev); err != nil {
		t.Fatal(err)
	}
	rev.Request.UserInfo.Groups = append(rev.Request.UserInfo.Groups, groups...)
	return mustJSON(t, rev)
}

// TestUpdateKeepsStoredOrigin sends UPDATEs through the mutating and then the
// validating handler over TLS (the API server's order): the stored object's
// kuma.io/origin and kuma.io/zone stay as they are unless a privileged user changes
// them.
func TestUpdateKeepsStoredOrigin(t *testing.T) {
	synced := mtpWith("mesh-system", syncedLabels...)
	own := mtpWith("app", append(zoneLabels, "k8s.kuma.io/namespace=app")...)
	globalSide := mtpWith("mesh-system", "kuma.io/origin=zone", "kuma.io/zone=zone-7", "kuma.io/mesh=default")
	for _, tc := range []struct {
		name     string
		mode     api.Mode
		old, obj *unstructured.Unstructured
		user     string
		groups   []string
		want     []cause // nil: admitted
	}{
		{name: "zone user strips origin global", mode: api.ModeZone, old: synced, obj: withLabels(synced, "kuma.io/mesh=default"), user: "alice",
			want: []cause{{"metadata.labels[kuma.io/origin]", "MG013"}}},
		{name: "zone user relabels a synced policy as the zone's", mode: api.ModeZone, old: synced, obj: withLabels(synced, zoneLabels...), user: "alice",
			want: []cause{{"metadata.labels[kuma.io/origin]", "MG013"}}},
		{name: "zone user keeps origin global: the mode rule refuses it once", mode: api.ModeZone, old: synced, obj: synced, user: "alice",
			want: []cause{{"metadata.labels[kuma.io/origin]", "MG013"}}},
		{name: "zone user changes the zone label: one cause", mode: api.ModeZone, old: own, obj: withLabels(own, "kuma.io/origin=zone", "kuma.io/zone=zone-2"), user: "alice",
			want: []cause{{"metadata.labels[kuma.io/zone]", "MG014"}}},
		{name: "zone user drops origin and zone of their own policy: the webhook sets them again", mode: api.ModeZone, old: own, obj: withLabels(own), user: "alice"},
		{name: "zone user adds a label to their own policy", mode: api.ModeZone, old: own, obj: withLabels(own, append(zoneLabels, "team=a")...), user: "alice"},
		{name: "old object without origin: nothing to keep", mode: api.ModeZone, old: mtpWith("app"), obj: mtpWith("app"), user: "alice"},
		{name: "control plane account of --system-namespace", mode: api.ModeZone, old: synced, obj: withLabels(synced, "kuma.io/mesh=default"), user: "system:serviceaccount:mesh-system:kuma-control-plane"},
		{name: "kuma-system's account is not trusted when the system namespace is mesh-system", mode: api.ModeZone, old: synced, obj: withLabels(synced, "kuma.io/mesh=default"),
			user: "system:serviceaccount:kuma-system:kuma-control-plane", want: []cause{{"metadata.labels[kuma.io/origin]", "MG013"}}},
		{name: "--privileged-users", mode: api.ModeZone, old: synced, obj: withLabels(synced, "kuma.io/mesh=default"), user: "kds-admin"},
		{name: "--privileged-groups", mode: api.ModeZone, old: synced, obj: withLabels(synced, "kuma.io/mesh=default"), user: "bob", groups: []string{"mesh-admins"}},
		{name: "global user strips origin zone of a zone's object", mode: api.ModeGlobal, old: globalSide, obj: withLabels(globalSide, "kuma.io/mesh=default"), user: "alice",
			want: []cause{{"metadata.labels[kuma.io/origin]", "MG013"}, {"metadata.labels[kuma.io/zone]", "MG014"}}},
		{name: "standalone: labels are the mode rules' business", mode: api.ModeStandalone, old: own, obj: withLabels(own, "kuma.io/mesh=default"), user: "alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, base := tlsServer(t, trustEngine(tc.mode))
			mresp, code := post(t, client, base+MutatePath, reviewAs(t, admissionv1.Update, tc.obj, tc.old, tc.user, tc.groups...))
			if code != http.StatusOK || !mresp.Allowed {
				t.Fatalf("mutation refused: %d %+v", code, mresp.Result)
			}
			mutated := applyPatch(t, tc.obj, mresp)
			resp, _ := post(t, client, base+ValidatePath, reviewAs(t, admissionv1.Update, mutated, tc.old, tc.user, tc.groups...))
			if diff := cmp.Diff(tc.want, causesOf(resp)); diff != "" || resp.Allowed != (tc.want == nil) {
				t.Errorf("allowed=%v causes (-want +got):\n%s\nresult: %+v", resp.Allowed, diff, resp.Result)
			}
		})
	}
}

// deleteReview is a DELETE AdmissionReview as the API server sends it: no object,
// the stored one in oldObject.
func deleteReview(t *testing.T, old *unstructured.Unstructured, user string, dryRun bool) []byte {
	t.Helper()
	gvk := old.GroupVersionKind()
	req := &admissionv1.AdmissionRequest{
		UID: types.UID("uid-delete-" + old.GetName()), Operation: admissionv1.Delete,
		Kind:     metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Resource: metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"},
		Name:     old.GetName(), Namespace: old.GetNamespace(),
		UserInfo:  authnv1.UserInfo{Username: user, Groups: []string{"system:authenticated"}},
		OldObject: runtime.RawExtension{Raw: mustJSON(t, old.Object)},
		DryRun:    &dryRun,
	}
	if len(old.Object) == 0 {
		req.OldObject = runtime.RawExtension{}
	}
	return mustJSON(t, admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req})
}

// TestDeleteOfSyncedObjects sends DELETEs to the validating handler over TLS: on a
// federated zone what global provides stays, as Kuma's admission keeps it; elsewhere
// and for trusted users DELETE is allowed.
func TestDeleteOfSyncedObjects(t *testing.T) {
	mesh := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kuma.io/v1alpha1", "kind": "Mesh",
		"metadata": map[string]any{"name": "default", "labels": map[string]any{"kuma.io/origin": "global"}}}}
	gateway := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshGateway",
		"metadata": map[string]any{"name": "edge", "labels": map[string]any{"kuma.io/origin": "global"}}}}
	synced := mtpWith("mesh-system", syncedLabels...)
	originCause := []cause{{"metadata.labels[kuma.io/origin]", "MG013"}}
	for _, tc := range []struct {
		name   string
		mode   api.Mode
		old    *unstructured.Unstructured
		user   string
		dryRun bool
		want   []cause
	}{
		{name: "synced policy", mode: api.ModeZone, old: synced, user: "alice", want: originCause},
		{name: "synced policy, dry run", mode: api.ModeZone, old: synced, user: "alice", dryRun: true, want: originCause},
		{name: "system-namespace policy without origin", mode: api.ModeZone, old: mtpWith("mesh-system", "kuma.io/mesh=default"), user: "alice", want: originCause},
		{name: "the zone's own policy in the system namespace", mode: api.ModeZone, old: mtpWith("mesh-system", zoneLabels...), user: "alice"},
		{name: "the zone's own policy in an application namespace", mode: api.ModeZone, old: mtpWith("app", zoneLabels...), user: "alice"},
		{name: "another zone's policy", mode: api.ModeZone, old: mtpWith("app", "kuma.io/origin=zone", "kuma.io/zone=zone-2"), user: "alice",
			want: []cause{{"metadata.labels[kuma.io/zone]", "MG014"}}},
		{name: "a Mesh, which global provides", mode: api.ModeZone, old: mesh, user: "alice", want: []cause{{"kind", "MG177"}}},
		{name: "a MeshGateway: Kuma lets zone users delete it", mode: api.ModeZone, old: gateway, user: "alice"},
		{name: "control plane account", mode: api.ModeZone, old: synced, user: "system:serviceaccount:mesh-system:kuma-control-plane"},
		{name: "garbage collector", mode: api.ModeZone, old: synced, user: api.GarbageCollectorUser},
		{name: "namespace controller", mode: api.ModeZone, old: synced, user: api.NamespaceControllerUser},
		{name: "--privileged-users", mode: api.ModeZone, old: synced, user: "kds-admin"},
		{name: "kuma-system's account with system namespace mesh-system", mode: api.ModeZone, old: synced, user: "system:serviceaccount:kuma-system:kuma-control-plane", want: originCause},
		{name: "standalone zone", mode: api.ModeStandalone, old: synced, user: "alice"},
		{name: "global", mode: api.ModeGlobal, old: mtpWith("mesh-system", "kuma.io/origin=zone", "kuma.io/zone=zone-2"), user: "alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, base := tlsServer(t, trustEngine(tc.mode))
			old := tc.old
			if len(old.Object) == 0 { // the request still names a kind
				old = &unstructured.Unstructured{Object: map[string]any{}}
				old.SetAPIVersion("kuma.io/v1alpha1")
				old.SetKind("MeshTrafficPermission")
			}
			body := deleteReview(t, old, tc.user, tc.dryRun)
			if len(tc.old.Object) == 0 {
				var rev admissionv1.AdmissionReview
				_ = json.Unmarshal(body, &rev)
				rev.Request.OldObject = runtime.RawExtension{}
				body = mustJSON(t, rev)
			}
			resp, code := post(t, client, base+ValidatePath, body)
			if code != http.StatusOK {
				t.Fatalf("HTTP %d", code)
			}
			if diff := cmp.Diff(tc.want, causesOf(resp)); diff != "" || resp.Allowed != (tc.want == nil) {
				t.Fatalf("allowed=%v causes (-want +got):\n%s\nresult: %+v", resp.Allowed, diff, resp.Result)
			}
			if tc.want != nil && (resp.Result.Code != http.StatusForbidden || resp.Result.Reason != metav1.StatusReasonForbidden ||
				!strings.Contains(resp.Result.Message, "is forbidden") || !strings.Contains(resp.Result.Message, tc.want[0].Code)) {
				t.Errorf("want a 403 Forbidden naming %s: %+v", tc.want[0].Code, resp.Result)
			}
		})
	}
}
