package webhook

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metadatafake "k8s.io/client-go/metadata/fake"

	meshschema "github.com/meshguard/meshguard/schema"
)

var mtpGVK = schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"}

// embeddedCRD is the embedded CRD called name.
func embeddedCRD(t *testing.T, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crds, err := meshschema.CRDs(meshschema.KumaRelease(meshschema.DefaultKumaVersion))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range crds {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no embedded CRD %s", name)
	return nil
}

// waitRedundant waits until Redundant(gvk) is want.
func waitRedundant(t *testing.T, s *InstalledSchemas, gvk schema.GroupVersionKind, want bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.Redundant(gvk) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: Redundant(%s) stayed %v", what, gvk.Kind, !want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestInstalledSchemasSkipOnlyTheSameSchema: the schema layer is redundant for a
// kind only while its installed CRD has the embedded schema: not before the CRD is
// read, not for a CRD whose schema differs (another release, a hand edit), not
// after the CRD changes or is deleted. The cluster is client-go's fake clients
// (the e2e suite's TestSchemaCheckFollowsTheInstalledCRD runs the real API server).
func TestInstalledSchemasSkipOnlyTheSameSchema(t *testing.T) {
	set, err := meshschema.Load(meshschema.KumaRelease(meshschema.DefaultKumaVersion))
	if err != nil {
		t.Fatal(err)
	}
	mtp := embeddedCRD(t, "meshtrafficpermissions.kuma.io")
	differing := embeddedCRD(t, "meshtimeouts.kuma.io").DeepCopy()
	props := differing.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	props.Description += " (edited)"
	differing.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = props
	timeoutGVK := schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"}
	retryGVK := schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshRetry"}

	metaOf := func(c *apiextensionsv1.CustomResourceDefinition) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
			ObjectMeta: metav1.ObjectMeta{Name: c.Name, ResourceVersion: c.ResourceVersion}}
	}
	crds := apiextensionsfake.NewSimpleClientset(mtp.DeepCopy(), differing.DeepCopy())
	scheme := metadatafake.NewTestScheme()
	metav1.AddMetaToScheme(scheme)
	scheme.AddKnownTypeWithName(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), &metav1.PartialObjectMetadata{})
	scheme.AddKnownTypeWithName(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinitionList"), &metav1.PartialObjectMetadataList{})
	meta := metadatafake.NewSimpleMetadataClient(scheme, metaOf(mtp), metaOf(differing))
	s := NewInstalledSchemas(set, meta, crds, logr.Discard())
	if s.Redundant(mtpGVK) {
		t.Fatal("redundant before any CRD was read")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	waitRedundant(t, s, mtpGVK, true, "installed as embedded")
	time.Sleep(100 * time.Millisecond) // both CRDs have been read by now
	if s.Redundant(timeoutGVK) {
		t.Error("MeshTimeout: skipped though its installed schema differs")
	}
	if s.Redundant(retryGVK) {
		t.Error("MeshRetry: skipped though its CRD is not installed")
	}
	// The validators are built for the kind that needs them, before its first
	// object, and not for the one the API server checks.
	if !set.Built(timeoutGVK) || set.Built(mtpGVK) {
		t.Errorf("validators built: MeshTimeout (differs) %v, MeshTrafficPermission (same) %v; want true, false",
			set.Built(timeoutGVK), set.Built(mtpGVK))
	}

	// The MeshTrafficPermission CRD is edited: the schema layer comes back.
	edited := mtp.DeepCopy()
	edited.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = props
	edited.ResourceVersion = "2"
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, edited, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := meta.Resource(crdGVR).(interface {
		UpdateFake(*metav1.PartialObjectMetadata, metav1.UpdateOptions, ...string) (*metav1.PartialObjectMetadata, error)
	}).UpdateFake(metaOf(edited), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRedundant(t, s, mtpGVK, false, "edited")

	// Restored, then deleted.
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, mtp.DeepCopy(), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	restored := metaOf(mtp)
	restored.ResourceVersion = "3"
	if _, err := meta.Resource(crdGVR).(interface {
		UpdateFake(*metav1.PartialObjectMetadata, metav1.UpdateOptions, ...string) (*metav1.PartialObjectMetadata, error)
	}).UpdateFake(restored, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRedundant(t, s, mtpGVK, true, "restored")
	if err := crds.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, mtp.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := meta.Resource(crdGVR).Delete(ctx, mtp.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRedundant(t, s, mtpGVK, false, "deleted")
}

// TestValidateSkipsTheSchemaLayerOnlyWhenRedundant: a MeshTrafficPermission the
// embedded CRD refuses (an unknown action, a misspelt field) is denied with the
// schema layer's findings while SchemaRedundant says no (the installed CRD differs
// or is unknown); when it says yes, the API server has refused such an object
// before the webhook, and the layer is not run. The deprecation notice stays.
func TestValidateSkipsTheSchemaLayerOnlyWhenRedundant(t *testing.T) {
	h := testEngine()
	if err := meshschema.LoadInto(&h.Settings); err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
		"metadata": map[string]any{"name": "p", "namespace": "kuma-system", "labels": map[string]any{
			"kuma.io/mesh": "default", "k8s.kuma.io/namespace": "kuma-system", "kuma.io/policy-role": "system"}},
		"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh", "nmae": "x"},
			"from": []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Allow"}}}},
	}}
	req := admissionRequest(t, "u1", admissionv1.Create, obj, nil, "alice")
	var asked []schema.GroupVersionKind
	for _, tc := range []struct {
		redundant   bool
		wantUnknown bool
	}{{false, true}, {true, false}} {
		h.SchemaRedundant = func(gvk schema.GroupVersionKind) bool { asked = append(asked, gvk); return tc.redundant }
		resp := h.Validate(context.Background(), req)
		got := strings.Join(resp.Warnings, "\n")
		if resp.Result != nil && resp.Result.Details != nil {
			for _, c := range resp.Result.Details.Causes {
				got += "\n" + c.Field + " " + c.Message
			}
		}
		if has := strings.Contains(got, "nmae"); has != tc.wantUnknown {
			t.Errorf("redundant %v: schema finding about spec.targetRef.nmae = %v, want %v:\n%s", tc.redundant, has, tc.wantUnknown, got)
		}
	}
	if len(asked) != 2 || asked[0] != mtpGVK {
		t.Errorf("SchemaRedundant asked about %v, want the request's kind", asked)
	}
}

// TestPrepareSchemas: serve builds the schema layer's validators up front where
// the layer runs on every object (always; auto offline) and not where the API
// server's check may stand for it (never; auto, which builds them per CRD).
func TestPrepareSchemas(t *testing.T) {
	for _, tc := range []struct {
		check   string
		offline bool
		built   bool
	}{
		{SchemaCheckAlways, false, true},
		{SchemaCheckAuto, true, true},
		{SchemaCheckNever, true, false},
		{SchemaCheckAuto, false, false},
	} {
		set, err := meshschema.Load(meshschema.KumaRelease(meshschema.DefaultKumaVersion))
		if err != nil {
			t.Fatal(err)
		}
		if err := prepareSchemas(set, Options{SchemaCheck: tc.check, Offline: tc.offline}); err != nil {
			t.Fatal(err)
		}
		if got := set.Built(mtpGVK); got != tc.built {
			t.Errorf("--schema-check %s, offline %v: validators built %v, want %v", tc.check, tc.offline, got, tc.built)
		}
	}
}
