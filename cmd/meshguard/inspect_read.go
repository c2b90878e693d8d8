package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumainspect"
	"github.com/meshguard/meshguard/kumak8s"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/live"
)

// inspectInput are the flags that say where inspect reads its objects and
// which proxy it shows: what lint reads (kustomizations and Helm charts
// rendered, --inventory) or a live cluster, and a proxy by workload.
type inspectInput struct {
	proxy        string
	namespace    string
	inventory    []string
	kubeconfig   string
	kubeContext  string
	noKustomize  bool
	noHelm       bool
	helmValues   []string
	render       renderFlags
	derivedNotes []string
}

// bind adds the input flags to inspect.
func (in *inspectInput) bind(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&in.proxy, "proxy", "", "the proxy to show, as KIND/NAME: a workload (Deployment/web, StatefulSet/db, DaemonSet/agent, ReplicaSet/x, Pod/web-7d9), MeshGatewayInstance/edge, MeshGateway/edge (a builtin gateway proxy serving it) or Dataplane/web-1; of --namespace")
	f.StringVarP(&in.namespace, "namespace", "n", "default", "namespace of --proxy, and of Helm releases rendered")
	f.StringArrayVar(&in.inventory, "inventory", nil, "file or directory of more objects to read (workloads, Services, Namespaces, Kuma objects; rendered like PATHs); repeatable")
	f.StringVar(&in.kubeconfig, "kubeconfig", "", "read the objects from this cluster (read-only lists) instead of files")
	f.StringVar(&in.kubeContext, "context", "", "the kubeconfig context to read from")
	f.BoolVar(&in.noKustomize, "no-kustomize", false, "read kustomization directories as plain files instead of building them")
	f.BoolVar(&in.noHelm, "no-helm", false, "read chart directories as plain files instead of rendering them")
	f.StringArrayVar(&in.helmValues, "helm-values", nil, "values file merged over every rendered chart's values.yaml, like helm template -f (repeatable)")
	in.render.bind(cmd)
}

// read reads every object inspect is given, adds the Dataplanes and
// MeshServices Kuma's Kubernetes control plane derives from the workloads and
// Services among them (kumak8s), and returns the store and the proxies found.
func (in *inspectInput) read(s streams, args []string) (*kumainspect.Store, kumak8s.Result, error) {
	var objs []kumainspect.Object
	var err error
	switch {
	case in.kubeconfig != "" || in.kubeContext != "":
		if len(args) > 0 || len(in.inventory) > 0 {
			return nil, kumak8s.Result{}, usageErr("give either PATHs (and --inventory) or --kubeconfig/--context, not both")
		}
		objs, err = in.readCluster(s)
	case len(args) == 0:
		return nil, kumak8s.Result{}, usageErr("inspect needs at least one PATH, - for standard input, or --kubeconfig")
	default:
		objs, err = in.readPaths(s, args)
	}
	if err != nil {
		return nil, kumak8s.Result{}, err
	}
	var kube []*unstructured.Unstructured
	for _, o := range objs {
		if !o.Universal && o.Unstructured != nil {
			kube = append(kube, o.Unstructured)
		}
	}
	derived := kumak8s.Derive(kube, kumak8s.Options{})
	for _, note := range derived.Notes {
		fmt.Fprintf(s.err, "meshguard inspect: %s\n", note)
	}
	for _, u := range derived.Objects {
		objs = append(objs, kumainspect.Object{Unstructured: u})
	}
	store, err := newInspectStore(objs)
	return store, derived, err
}

// readPaths reads args and --inventory: plain files, directories and standard
// input with inspect's reader (Universal format and manifests, as Kuma's store
// takes them), and a kustomization or Helm chart, or a tree holding one, with
// lint's loader, rendered as lint renders it.
func (in *inspectInput) readPaths(s streams, args []string) ([]kumainspect.Object, error) {
	all := append(slices.Clone(args), in.inventory...)
	if err := checkPaths(all); err != nil {
		return nil, err
	}
	ro, timeout, err := in.render.options()
	if err != nil {
		return nil, err
	}
	lo := lint.LoadOptions{Kustomize: !in.noKustomize, Helm: !in.noHelm, HelmValues: in.helmValues,
		Namespace: in.namespace, RenderTimeout: timeout, Render: ro}
	reg := api.DefaultRegistry()
	var objs []kumainspect.Object
	for _, arg := range all {
		if arg != "-" && rendersIn(arg, lo) {
			docs, err := renderedObjects(arg, lo)
			if err != nil {
				return nil, err
			}
			objs = append(objs, docs...)
			continue
		}
		files, err := inspectFiles(arg)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		for _, file := range files {
			docs, err := decodeFile(s, file, reg)
			if err != nil {
				return nil, usageErr("%v", err)
			}
			objs = append(objs, docs...)
		}
	}
	return objs, nil
}

// rendersIn reports whether lint's loader would render something in path: it
// is, or a directory under it holds, a kustomization file or a Chart.yaml.
func rendersIn(path string, lo lint.LoadOptions) bool {
	renders := func(name string) bool {
		return (lo.Kustomize && isKustomization(name)) || (lo.Helm && name == "Chart.yaml")
	}
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		return renders(filepath.Base(path))
	}
	found := false
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && renders(d.Name()) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// isKustomization is a file name kustomize builds.
func isKustomization(name string) bool {
	return name == "kustomization.yaml" || name == "kustomization.yml" || name == "Kustomization"
}

// renderedObjects are the objects lint's loader reads from path, rendered; a
// document or render that fails is an input error naming its file and line.
func renderedObjects(path string, lo lint.LoadOptions) ([]kumainspect.Object, error) {
	loaded := lint.LoadAll([]string{path}, nil, lo)
	var out []kumainspect.Object
	for _, d := range loaded.Docs {
		if d.Err != nil {
			line := d.ErrLine
			if line == 0 {
				line = d.Line
			}
			return nil, usageErr("%s:%d: %v", d.File, line, d.Err)
		}
		if d.Object != nil {
			out = append(out, kumainspect.Object{Unstructured: d.Object})
		}
	}
	return out, nil
}

// readCluster lists, read-only, what check --kubeconfig lists: the Kuma kinds the
// cluster serves, and Namespaces, Services and workloads; and Kuma's Dataplanes
// when the cluster has them.
//
// It says first which releases the cluster runs (inspect follows Kuma's newest
// rules whichever it is, so the lines only inform).
func (in *inspectInput) readCluster(s streams) ([]kumainspect.Object, error) {
	ctx, cancel := context.WithTimeout(context.Background(), liveTimeout)
	defer cancel()
	cfg, err := live.Config(in.kubeconfig, in.kubeContext)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig/--context: %w", err)
	}
	sayReleases(s, "inspect", foundReleases(ctx, cfg, api.DefaultSystemNS))
	r, err := live.NewReader(cfg)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig/--context: %w", err)
	}
	dataplanes := schema.GroupVersionResource{Group: api.KumaGroup, Version: "v1alpha1", Resource: "dataplanes"}
	res, err := r.Read(ctx, live.Options{Inventory: true, Extra: []schema.GroupVersionResource{dataplanes}})
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig/--context: %w", err)
	}
	var out []kumainspect.Object
	for _, d := range append(res.Docs, res.Inventory...) {
		if d.Object != nil {
			out = append(out, kumainspect.Object{Unstructured: d.Object})
		}
	}
	return out, nil
}

// chooseProxy turns --proxy KIND/NAME (of --namespace) into the mesh and store
// name of its Dataplane; an unknown one is a usage error listing the proxies of
// the input.
func (in *inspectInput) chooseProxy(store *kumainspect.Store, derived kumak8s.Result) (mesh, dataplane string, err error) {
	kind, name, ok := strings.Cut(in.proxy, "/")
	if !ok || kind == "" || name == "" {
		return "", "", usageErr("--proxy %q: give KIND/NAME, e.g. Deployment/web", in.proxy)
	}
	ns := in.namespace
	switch strings.ToLower(kind) {
	case "dataplane":
		for _, dp := range store.Dataplanes() {
			if dp.Name == name+"."+ns || dp.Name == name {
				return dp.Mesh, dp.Name, nil
			}
		}
	case "meshgateway":
		if dp, found := store.GatewayProxy(name); found {
			return dp.Mesh, dp.Name, nil
		}
	default:
		for _, p := range derived.Proxies {
			if strings.EqualFold(p.Kind, kind) && p.Name == name && p.Namespace == ns {
				return p.Mesh, p.Dataplane + "." + p.Namespace, nil
			}
		}
	}
	return "", "", usageErr("no proxy %s in namespace %s; the input has:\n%s", in.proxy, ns, proxyList(store, derived))
}

// proxyList names every proxy of the input, one a line, as --proxy takes them.
func proxyList(store *kumainspect.Store, derived kumak8s.Result) string {
	var lines []string
	fromWorkload := map[string]bool{}
	for _, p := range derived.Proxies {
		lines = append(lines, fmt.Sprintf("  --proxy %s/%s -n %s  (mesh %s, Dataplane %s.%s)", p.Kind, p.Name, p.Namespace, p.Mesh, p.Dataplane, p.Namespace))
		fromWorkload[p.Mesh+"/"+p.Dataplane+"."+p.Namespace] = true
	}
	for _, dp := range store.Dataplanes() {
		if fromWorkload[dp.Mesh+"/"+dp.Name] {
			continue
		}
		name, ns, _ := strings.Cut(dp.Name, ".")
		if dp.Namespace != "" && ns == dp.Namespace {
			lines = append(lines, fmt.Sprintf("  --proxy Dataplane/%s -n %s  (mesh %s)", name, ns, dp.Mesh))
		} else {
			lines = append(lines, fmt.Sprintf("  --proxy Dataplane/%s  (mesh %s)", dp.Name, dp.Mesh))
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "  (no proxies: no Dataplanes, and no workloads in a namespace labelled kuma.io/sidecar-injection: enabled)"
	}
	return strings.Join(lines, "\n")
}
