package live

import (
	"context"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	meshschema "github.com/meshguard/meshguard/schema"
)

// LinkerdNamespace is where Linkerd's control plane runs (`linkerd install`'s and
// its Helm chart's namespace): its linkerd-config ConfigMap and destination
// Deployment say which release it is.
const LinkerdNamespace = "linkerd"

var (
	crdGVR        = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")
	deploymentGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMapGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// Releases reads what the cluster says about the release of each mesh meshguard
// embeds (schema.Meshes): the CRDs of the mesh's group it serves, each read by name
// (get only) and fingerprinted with schema.SchemaHash, and the control plane's
// version: Kuma's kuma-control-plane Deployment image in kumaSystemNamespace,
// Linkerd's linkerd-config (or its destination Deployment's image) in
// LinkerdNamespace. What cannot be read (not installed, forbidden) is said in the
// result, never an error: detection only informs the choice of release.
func (r *Reader) Releases(ctx context.Context, kumaSystemNamespace string) ([]meshschema.Detected, error) {
	var out []meshschema.Detected
	for _, m := range meshschema.Meshes() {
		d := meshschema.Detected{Mesh: m}
		embedded, err := meshschema.EmbeddedReleases(m)
		if err != nil {
			return nil, err
		}
		installed, versions, why := r.installedHashes(ctx, embedded.Names())
		d.Installed, d.Versions, d.CRDsUnreadable = len(installed), versions, why
		d.Matches = embedded.Match(installed)
		switch m.Name {
		case "kuma":
			d.ControlPlane, d.Where, d.Unreadable = r.deploymentTag(ctx, kumaSystemNamespace, "kuma-control-plane", "control-plane")
		case "linkerd":
			d.ControlPlane, d.Where, d.Unreadable = r.linkerdVersion(ctx)
		}
		out = append(out, d)
	}
	return out, nil
}

// GatewayAPI reads which Gateway API bundle the cluster serves: the route CRDs
// any embedded bundle has (schema.GatewayAPICRDNames), each read by name (get
// only), with their bundle-version and channel annotations. As for Releases, what
// cannot be read is said in the result, never an error.
func (r *Reader) GatewayAPI(ctx context.Context) (meshschema.GatewayAPIDetected, error) {
	names, err := meshschema.GatewayAPICRDNames()
	if err != nil {
		return meshschema.GatewayAPIDetected{}, err
	}
	var g meshschema.GatewayAPIDetected
	for _, name := range names {
		u, err := r.dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return meshschema.GatewayAPIDetected{Unreadable: "reading CRD " + name + ": " + apiMessage(err)}, nil
		}
		a := u.GetAnnotations()
		g.CRDs = append(g.CRDs, meshschema.GatewayAPICRD{Name: name,
			Bundle: a[meshschema.GatewayAPIBundleAnnotation], Channel: a[meshschema.GatewayAPIChannelAnnotation]})
	}
	return g, nil
}

// installedHashes reads the CRDs named (those any embedded release of a mesh
// has); why says why they could not be read.
func (r *Reader) installedHashes(ctx context.Context, names []string) (meshschema.Hashes, int, string) {
	out := meshschema.Hashes{}
	versions := 0
	for _, name := range names {
		u, err := r.dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, 0, "reading CRD " + name + ": " + apiMessage(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &crd); err != nil {
			return nil, 0, fmt.Sprintf("CRD %s: %v", name, err)
		}
		h, err := meshschema.SchemaHash(&crd)
		if err != nil {
			return nil, 0, fmt.Sprintf("CRD %s: %v", name, err)
		}
		out[name] = h
		for _, v := range crd.Spec.Versions {
			if v.Served {
				versions++
			}
		}
	}
	return out, versions, ""
}

// deploymentTag is the image tag of the container named container (else the
// first) of Deployment ns/name, and where it was read; why says why not.
func (r *Reader) deploymentTag(ctx context.Context, ns, name, container string) (tag, where, why string) {
	where = "Deployment " + ns + "/" + name
	u, err := r.dyn.Resource(deploymentGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return "", "", "no " + where
		}
		return "", "", where + ": " + apiMessage(err)
	}
	cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	image := ""
	for i, c := range cs {
		m, _ := c.(map[string]any)
		img, _ := m["image"].(string)
		if i == 0 || m["name"] == container {
			image = img
		}
	}
	if tag = imageTag(image); tag == "" {
		return "", "", where + ": image " + image + " has no tag"
	}
	return tag, where + ", image " + image, ""
}

// imageTag is the tag of an image reference ("kumahq/kuma-cp:2.13.10@sha256:…" →
// "2.13.10"), "" when it has none.
func imageTag(image string) string {
	image, _, _ = strings.Cut(image, "@")
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return ""
	}
	return image[i+1:]
}

// linkerdVersion is the release Linkerd's control plane runs: linkerdVersion in
// the values of its linkerd-config ConfigMap, else the image tag of its
// destination Deployment.
func (r *Reader) linkerdVersion(ctx context.Context) (version, where, why string) {
	where = "ConfigMap " + LinkerdNamespace + "/linkerd-config"
	u, err := r.dyn.Resource(configMapGVR).Namespace(LinkerdNamespace).Get(ctx, "linkerd-config", metav1.GetOptions{})
	if err == nil {
		values, _, _ := unstructured.NestedString(u.Object, "data", "values")
		var v struct {
			LinkerdVersion string `json:"linkerdVersion"`
		}
		if yaml.Unmarshal([]byte(values), &v) == nil && v.LinkerdVersion != "" {
			return v.LinkerdVersion, where, ""
		}
	}
	tag, dwhere, dwhy := r.deploymentTag(ctx, LinkerdNamespace, "linkerd-destination", "destination")
	if tag != "" {
		return tag, dwhere, ""
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return "", "", where + ": " + apiMessage(err) + "; " + dwhy
	}
	return "", "", "no " + where + " with linkerdVersion; " + dwhy
}
