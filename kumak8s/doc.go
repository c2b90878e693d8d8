// Package kumak8s derives, from Kubernetes objects, the Dataplanes and
// MeshServices Kuma 2.14's Kubernetes control plane creates for them
// (pkg/plugins/runtime/k8s/controllers of kumahq/kuma v2.14.3: the pod, inbound,
// gateway-instance and MeshService converters), so `meshguard inspect` can show a
// proxy from the manifests users write (Deployments, Services) without a running
// control plane.
//
// It is a leaf: it imports api for the kind and label names, k8s.io/api for the
// workload types, and no controller-runtime. What it builds is the Kubernetes form
// of each object (apiVersion kuma.io/v1alpha1, metadata, spec), which
// kumainspect.NewStore then reads as Kuma's Kubernetes store reads it.
package kumak8s
