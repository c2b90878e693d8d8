package webhook

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/compile"
	"github.com/meshguard/meshguard/lint"
)

const syncUser = "system:serviceaccount:kuma-system:kuma-control-plane"

// observed is an engine with its metrics and denial log lines counted.
type observed struct {
	eng      *Engine
	mu       sync.Mutex
	findings map[string]int
	denials  []string
}

func newObserved(list PolicyLister, cached bool) *observed {
	o := &observed{findings: map[string]int{}}
	s := api.DefaultSettings()
	pv := NewPreviewer(list, compile.Options{Form: compile.FormExpanded, MaxExpandedRules: 64, SystemNamespace: s.SystemNamespace})
	o.eng = &Engine{
		Registry: api.DefaultRegistry(), Settings: s,
		PrivilegedUsers: map[string]bool{syncUser: true},
		Preview:         pv.Answer, PreviewVersion: pv.StoredVersion,
		DisableVerdictCache: !cached,
		Record: func(kind, code, sev string) {
			o.mu.Lock()
			o.findings[kind+"/"+code+"/"+sev]++
			o.mu.Unlock()
		},
		Log: funcr.New(func(_, args string) {
			o.mu.Lock()
			o.denials = append(o.denials, args)
			o.mu.Unlock()
		}, funcr.Options{}),
	}
	return o
}

// admissionRequest builds the request the API server sends for obj.
func admissionRequest(t testing.TB, uid string, op admissionv1.Operation, obj, old *unstructured.Unstructured, user string) admission.Request {
	t.Helper()
	gvk := obj.GroupVersionKind()
	r := admissionv1.AdmissionRequest{
		UID: types.UID(uid), Operation: op,
		Kind: metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Name: obj.GetName(), Namespace: obj.GetNamespace(),
		UserInfo: authnv1.UserInfo{Username: user},
		Object:   runtime.RawExtension{Raw: mustJSON(t, obj.Object)},
	}
	if old != nil {
		r.OldObject = runtime.RawExtension{Raw: mustJSON(t, old.Object)}
	}
	return admission.Request{AdmissionRequest: r}
}

// exampleRequests are CREATEs and UPDATEs of every example document, by an ordinary
// and by the privileged user.
func exampleRequests(t *testing.T) []admission.Request {
	files, _ := filepath.Glob("../examples/*/*.yaml")
	more, _ := filepath.Glob("../examples/linkerd/*/*.yaml")
	docs := lint.Load(append(files, more...), nil)
	if len(docs) < 30 {
		t.Fatalf("only %d example documents", len(docs))
	}
	var reqs []admission.Request
	for i, d := range docs {
		if d.Object == nil {
			continue
		}
		obj := d.Object.DeepCopy()
		if obj.GetNamespace() == "" {
			obj.SetNamespace("default")
		}
		moved := obj.DeepCopy()
		labels := moved.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[api.LabelMesh] = "elsewhere"
		moved.SetLabels(labels)
		for _, user := range []string{"alice", syncUser} {
			reqs = append(reqs,
				admissionRequest(t, fmt.Sprint("c", i, user), admissionv1.Create, obj, nil, user),
				admissionRequest(t, fmt.Sprint("u", i, user), admissionv1.Update, moved, obj, user),
				admissionRequest(t, fmt.Sprint("s", i, user), admissionv1.Update, obj, obj, user))
		}
	}
	return reqs
}

// TestVerdictCacheMatchesUncached sends every example three times to an engine
// with the verdict cache and to one without: the responses, the counted findings
// and the denial log lines must be the same, and the cache must have answered.
func TestVerdictCacheMatchesUncached(t *testing.T) {
	stored := []unstructured.Unstructured{*storedMTP("mesh-deny", "1", "Deny")}
	list := func(context.Context) ([]unstructured.Unstructured, bool) { return stored, true }
	cached, plain := newObserved(list, true), newObserved(list, false)
	reqs := exampleRequests(t)
	for round := range 3 {
		for _, req := range reqs {
			got := cached.eng.Validate(context.Background(), req)
			want := plain.eng.Validate(context.Background(), req)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("round %d, %s %s %s/%s by %s: cached verdict differs (-uncached +cached):\n%s", round,
					req.Operation, req.Kind.Kind, req.Namespace, req.Name, req.UserInfo.Username, diff)
			}
		}
	}
	if diff := cmp.Diff(plain.findings, cached.findings); diff != "" {
		t.Errorf("counted findings differ (-uncached +cached):\n%s", diff)
	}
	if diff := cmp.Diff(plain.denials, cached.denials); diff != "" {
		t.Errorf("denial log lines differ (-uncached +cached):\n%s", diff)
	}
	if len(plain.denials) == 0 || len(plain.findings) == 0 {
		t.Fatal("the examples produced no denials or findings; the comparison proves nothing")
	}
	keys := map[resultKey]bool{}
	for _, req := range reqs {
		if k, _, ok := cached.eng.verdictKey(context.Background(), req); ok {
			keys[k] = true
		}
	}
	if n, _ := cached.eng.verdicts().len(); n != len(keys) || n < len(reqs)/4 {
		t.Errorf("%d cached verdicts for %d requests, %d of them cacheable and distinct", n, len(reqs), len(keys))
	}
}

// stampedPair is req twice, with two different stampings of the server-set
// metadata of its objects, and another request uid for the second.
func stampedPair(t *testing.T, req admission.Request) (a, b admission.Request) {
	t.Helper()
	a, b = req, req
	a.Object.Raw, a.OldObject.Raw = stamp(t, req.Object.Raw, 1), stamp(t, req.OldObject.Raw, 2)
	b.Object.Raw, b.OldObject.Raw = stamp(t, req.Object.Raw, 3), stamp(t, req.OldObject.Raw, 4)
	b.UID = "other"
	return a, b
}

// stamp gives raw's object the metadata the API server sets on a write, with
// values of its own (n picks them), as two CREATEs of one manifest differ.
func stamp(t *testing.T, raw []byte, n int) []byte {
	t.Helper()
	if len(raw) == 0 {
		return raw
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	at := metav1.NewTime(time.Date(2026, 1, 1+n, 0, 0, n, 0, time.UTC))
	obj.SetUID(types.UID(fmt.Sprintf("6f1c2a4e-0000-4000-8000-%012d", n)))
	obj.SetCreationTimestamp(at)
	obj.SetGeneration(int64(n + 1))
	obj.SetResourceVersion(fmt.Sprint(1000 + n))
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: fmt.Sprint("m", n), Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: obj.GetAPIVersion(), Time: &at, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}})
	return mustJSON(t, obj.Object)
}

// TestServerSetMetadataDoesNotChangeVerdicts is what lets the verdict key leave
// out the metadata the API server sets (serverSet): for every example, requests
// differing only there get the same answer from an engine without the cache, and
// an engine with it answers the second one from the cache.
func TestServerSetMetadataDoesNotChangeVerdicts(t *testing.T) {
	stored := []unstructured.Unstructured{*storedMTP("mesh-deny", "1", "Deny")}
	list := func(context.Context) ([]unstructured.Unstructured, bool) { return stored, true }
	cached, plain := newObserved(list, true), newObserved(list, false)
	var hits, misses int
	cached.eng.RecordCache = func(hit bool) {
		if hit {
			hits++
		} else {
			misses++
		}
	}
	for _, req := range exampleRequests(t) {
		a, b := stampedPair(t, req)
		want := plain.eng.Validate(context.Background(), a)
		want.UID = ""
		for _, r := range []admission.Request{b, a, b} {
			for name, eng := range map[string]*Engine{"uncached": plain.eng, "cached": cached.eng} {
				got := eng.Validate(context.Background(), r)
				got.UID = ""
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s %s %s/%s, %s engine: the answer depends on server-set metadata (-first +other):\n%s",
						req.Operation, req.Kind.Kind, req.Namespace, req.Name, name, diff)
				}
			}
		}
	}
	if hits == 0 || hits < 2*misses {
		t.Errorf("%d verdict cache hits and %d misses; requests differing only in server-set metadata should hit", hits, misses)
	}
}

func storedMTP(name, rv, action string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
		"metadata": map[string]any{"name": name, "namespace": "kuma-system", "uid": "uid-" + name, "resourceVersion": rv,
			"labels": map[string]any{api.LabelMesh: "default"}},
		"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh"},
			"from": []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": action}}}},
	}}
}

// TestVerdictCacheFollowsStoredPolicies: a MeshTrafficPermission's verdict carries
// the preview merged with the stored policies, so a write of a stored policy must
// change the answer to the same request; so must the list becoming unavailable.
func TestVerdictCacheFollowsStoredPolicies(t *testing.T) {
	var mu sync.Mutex
	stored, listed := []unstructured.Unstructured{*storedMTP("mesh-wide", "1", "Deny")}, true
	list := func(context.Context) ([]unstructured.Unstructured, bool) {
		mu.Lock()
		defer mu.Unlock()
		return stored, listed
	}
	cached, plain := newObserved(list, true), newObserved(list, false)
	in := storedMTP("incoming", "", "Allow")
	in.SetNamespace("kuma-system")
	req := admissionRequest(t, "1", admissionv1.Update, in, in, "alice")
	var previous string
	for step, change := range []func(){
		func() {},
		func() { stored = []unstructured.Unstructured{*storedMTP("mesh-wide", "2", "Allow")} },
		func() { stored = append(stored, *storedMTP("second", "1", "Deny")) },
		func() { listed, stored = false, nil },
		func() { listed, stored = true, []unstructured.Unstructured{*storedMTP("mesh-wide", "1", "Deny")} },
	} {
		mu.Lock()
		change()
		mu.Unlock()
		for range 2 {
			got := cached.eng.Validate(context.Background(), req)
			want := plain.eng.Validate(context.Background(), req)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("step %d: cached verdict differs (-uncached +cached):\n%s", step, diff)
			}
		}
		ann := plain.eng.Validate(context.Background(), req).AuditAnnotations["rbac-preview"] +
			strings.Join(plain.eng.Validate(context.Background(), req).Warnings, "\n")
		if ann == previous {
			t.Errorf("step %d: the stored change did not change the answer; the test proves nothing", step)
		}
		previous = ann
	}
}

// TestVerdictKey checks what the key depends on: the request's object, old object,
// namespace, kind, operation and the privileged flag, but not its uid, the user's
// name (apart from privilege), dry-run or the metadata the API server sets on each
// write; and that only CREATEs and UPDATEs of Kuma kinds are cached.
func TestVerdictKey(t *testing.T) {
	eng := newObserved(func(context.Context) ([]unstructured.Unstructured, bool) { return nil, true }, true).eng
	obj := mustObj(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: ns, labels: {kuma.io/mesh: default}}\nspec: {targetRef: {kind: Mesh}}\n")
	other := obj.DeepCopy()
	other.SetName("t2")
	update := func(uid string, obj, old *unstructured.Unstructured, user string) admission.Request {
		return admissionRequest(t, uid, admissionv1.Update, obj, old, user)
	}
	base := update("a", obj, obj, "alice")
	key := func(r admission.Request) resultKey {
		t.Helper()
		k, _, ok := eng.verdictKey(context.Background(), r)
		if !ok {
			t.Fatalf("request not cacheable: %+v", r.AdmissionRequest)
		}
		return k
	}
	want := key(base)
	same := map[string]admission.Request{}
	r := base
	r.UID = "b"
	same["uid"] = r
	same["user"] = update("a", obj, obj, "bob")
	r = base
	dry := true
	r.DryRun = &dry
	same["dry run"] = r
	// Objects the API server sends carry the fields it sets; only their values
	// differ from write to write.
	stamp := func(u *unstructured.Unstructured, n int) *unstructured.Unstructured {
		u = u.DeepCopy()
		at := metav1.NewTime(time.Date(2026, 1, n, 0, 0, 0, 0, time.UTC))
		u.SetUID(types.UID(fmt.Sprint("6f1c2a4e-aaaa-4000-8000-", n)))
		u.SetResourceVersion(fmt.Sprint(1000 + n))
		u.SetGeneration(int64(n))
		u.SetCreationTimestamp(at)
		u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: "Apply", Time: &at}})
		return u
	}
	for name, r := range same {
		if key(r) != want {
			t.Errorf("%s changed the key", name)
		}
	}
	written := key(update("a", stamp(obj, 1), stamp(obj, 2), "alice"))
	for name, r := range map[string]admission.Request{
		"object":     update("a", stamp(obj, 3), stamp(obj, 2), "alice"),
		"old object": update("a", stamp(obj, 1), stamp(obj, 4), "alice"),
		"both":       update("a", stamp(obj, 5), stamp(obj, 6), "alice"),
	} {
		if key(r) != written {
			t.Errorf("server-set metadata of the %s changed the key", name)
		}
	}
	create := admissionRequest(t, "a", admissionv1.Create, stamp(obj, 1), nil, "alice")
	created := key(create)
	if key(admissionRequest(t, "b", admissionv1.Create, stamp(obj, 2), nil, "bob")) != created {
		t.Error("two CREATEs of one manifest, with a fresh uid and timestamps each, have different keys")
	}
	labelled := obj.DeepCopy()
	labelled.SetLabels(map[string]string{"kuma.io/mesh": "other"})
	annotated := obj.DeepCopy()
	annotated.SetAnnotations(map[string]string{"a": "b"})
	differ := map[string]admission.Request{
		"object":     update("a", other, obj, "alice"),
		"privileged": update("a", obj, obj, syncUser),
		"old object": update("a", obj, other, "alice"),
		"no old":     update("a", obj, nil, "alice"),
	}
	r = base
	r.Namespace = "elsewhere"
	differ["namespace"] = r
	r = base
	r.Kind.Kind = "MeshRetry"
	differ["kind"] = r
	differ["labels"] = update("a", labelled, obj, "alice")
	differ["annotations"] = update("a", annotated, obj, "alice")
	differ["create of another object"] = admissionRequest(t, "a", admissionv1.Create, other, nil, "alice")
	seen := map[resultKey]string{want: "base", created: "create"}
	for name, r := range differ {
		k := key(r)
		if prev, dup := seen[k]; dup {
			t.Errorf("%s gives the key of %s", name, prev)
		}
		seen[k] = name
	}
	for name, r := range map[string]admission.Request{
		"delete": admissionRequest(t, "a", admissionv1.Delete, obj, nil, "alice"),
		"not JSON": func() admission.Request {
			r := create
			r.Object.Raw = []byte(`{"metadata":{"uid":tru}}`)
			return r
		}(),
		"linkerd": update("a", mustObj(t, "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: s, namespace: ns}\nspec: {podSelector: {}, port: 80}\n"), nil, "alice"),
		"unknown": update("a", mustObj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"), nil, "alice"),
	} {
		if _, _, ok := eng.verdictKey(context.Background(), r); ok {
			t.Errorf("%s request is cached", name)
		}
	}
	eng.PreviewVersion = nil
	mtp := storedMTP("x", "", "Allow")
	if _, _, ok := eng.verdictKey(context.Background(), update("a", mtp, mtp, "alice")); ok {
		t.Error("a MeshTrafficPermission is cached without a preview version")
	}
}

// TestVerdictCacheConcurrent answers the same requests from many goroutines, each of
// which completes and modifies its response the way controller-runtime and a
// careless caller might; under -race this finds any state shared with the cache.
func TestVerdictCacheConcurrent(t *testing.T) {
	stored := []unstructured.Unstructured{*storedMTP("mesh-deny", "1", "Deny")}
	o := newObserved(func(context.Context) ([]unstructured.Unstructured, bool) { return stored, true }, true)
	o.eng.Log = logr.Discard()
	reqs := exampleRequests(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range reqs {
				req := reqs[(i+g*7)%len(reqs)]
				resp := o.eng.Validate(context.Background(), req)
				resp.Complete(req)
				if resp.Result != nil {
					resp.Result.Message += "x"
				}
				if len(resp.Warnings) > 0 {
					resp.Warnings[0] = "changed"
				}
				for k := range resp.AuditAnnotations {
					resp.AuditAnnotations[k] = "changed"
				}
			}
		})
	}
	wg.Wait()
	for _, req := range reqs {
		resp := o.eng.Validate(context.Background(), req)
		for _, w := range resp.Warnings {
			if w == "changed" {
				t.Fatal("a caller's change reached the cache")
			}
		}
		if resp.Result != nil && strings.HasSuffix(resp.Result.Message, "x") {
			t.Fatal("a caller's change of the status reached the cache")
		}
	}
}

// TestVerdictCacheGeneration: with a generation (the server's informer event count),
// the stored state's version is the generation, not a hash of the list: verdicts
// stay cached while it stands and follow the list once it moves.
func TestVerdictCacheGeneration(t *testing.T) {
	var mu sync.Mutex
	stored, gen, listed := []unstructured.Unstructured{*storedMTP("mesh-wide", "1", "Deny")}, uint64(1), true
	list := func(context.Context) ([]unstructured.Unstructured, bool) {
		mu.Lock()
		defer mu.Unlock()
		return stored, listed
	}
	o := newObserved(list, true)
	s := api.DefaultSettings()
	pv := NewPreviewer(list, compile.Options{Form: compile.FormExpanded, MaxExpandedRules: 64, SystemNamespace: s.SystemNamespace}).
		WithGeneration(func() (uint64, bool, bool) {
			mu.Lock()
			defer mu.Unlock()
			return gen, listed, true
		})
	o.eng.Preview, o.eng.PreviewVersion = pv.Answer, pv.StoredVersion
	plain := newObserved(list, false)
	in := storedMTP("incoming", "", "Allow")
	req := admissionRequest(t, "1", admissionv1.Update, in, in, "alice")
	first := o.eng.Validate(context.Background(), req)

	mu.Lock()
	stored = []unstructured.Unstructured{*storedMTP("mesh-wide", "2", "Allow")}
	mu.Unlock()
	if diff := cmp.Diff(first, o.eng.Validate(context.Background(), req)); diff != "" {
		t.Errorf("the answer changed although the generation did not (the cache was not used):\n%s", diff)
	}
	for step, change := range []func(){
		func() { gen++ },
		func() { listed, stored = false, nil },
		func() {
			gen++
			listed, stored = true, []unstructured.Unstructured{*storedMTP("mesh-wide", "3", "Deny")}
		},
	} {
		mu.Lock()
		change()
		mu.Unlock()
		want := plain.eng.Validate(context.Background(), req)
		if diff := cmp.Diff(want, o.eng.Validate(context.Background(), req)); diff != "" {
			t.Errorf("step %d: the answer did not follow the new generation (-uncached +cached):\n%s", step, diff)
		}
	}
}
