// Package live reads the objects stored in a running cluster, read-only, in the
// form the linter's loader produces (lint.Document), so `meshguard audit` and
// `meshguard check --kubeconfig` judge a cluster with the same engine that judges
// files. It lists every registry kind the cluster serves (found by discovery;
// kinds it does not serve are reported, never an error), in all namespaces or a
// given list, page by page, and optionally the inventory the cross-document
// checks read: Namespaces, Services and workloads.
//
// It needs only get and list; it never writes.
package live

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
)

// DefaultPageSize is how many objects one list request asks for: big enough that
// 10,000 policies take 20 round trips, small enough that one response stays a
// few MiB.
const DefaultPageSize = 500

// maxConcurrentLists bounds the list requests in flight, so a large registry does
// not hit the API server (or client-go's rate limiter) with dozens at once.
const maxConcurrentLists = 4

// Source is the File of every Document this package returns, before the object's
// own place: "cluster:<namespace>/<Kind>/<name>", or "cluster:<Kind>/<name>" for
// a cluster-scoped object.
const Source = "cluster:"

// Config loads a client configuration the way kubectl does: kubeconfig, when
// set, is the only file read; otherwise $KUBECONFIG (a list of files) or
// ~/.kube/config, and in-cluster configuration when none exists. context picks
// a context other than the current one.
func Config(kubeconfig, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		// client-go's own text names KUBERNETES_MASTER, a variable it no longer
		// reads; say what meshguard looks for and how to give it.
		return nil, errors.New("no kubeconfig found: give --kubeconfig FILE (and --context NAME), set KUBECONFIG, " +
			"or create ~/.kube/config; inside a pod the service account is used")
	}
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.UserAgent = "meshguard"
	// client-go's default of 5 requests/s would make the dozens of discovery and
	// list requests of one read wait on the client, not the server (kubectl
	// raises it likewise).
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	return cfg, nil
}

// Options say what Read lists.
type Options struct {
	// Registry is the set of kinds to read; nil means api.DefaultRegistry().
	Registry *api.Registry
	// Namespaces limits namespaced kinds to these namespaces; empty means all.
	// Cluster-scoped kinds (Mesh, MeshGateway) are always read: they apply to
	// every namespace.
	Namespaces []string
	// Inventory also reads Namespaces, Services and workloads (controllers with a
	// pod template, and pods no controller owns), the objects the reference and
	// selection checks look policies up against.
	Inventory bool
	// Extra are more resources to list into Result.Inventory when the cluster
	// serves them (meshguard inspect reads Kuma's Dataplanes, which are not a
	// registry kind); ones it does not serve are left out.
	Extra []schema.GroupVersionResource
	// PageSize is the Limit of each list request; 0 means DefaultPageSize.
	PageSize int64
	// Progress, when set, is called with the number of objects read so far, after
	// every page (from several goroutines; it must be safe for that).
	Progress func(read int)
}

// Result is what Read found.
type Result struct {
	// Docs are the registry objects, ordered by registry kind, namespace and name.
	Docs []lint.Document
	// Inventory are the Namespaces, Services and workloads when Options.Inventory
	// is set, in the same order.
	Inventory []lint.Document
	// Skipped names the kinds not read and why: not served by the cluster (its CRD
	// is not installed), or forbidden to this user. Reading goes on without them.
	Skipped []Skipped
}

// Skipped is one kind Read did not list.
type Skipped struct {
	// Resource is "<plural>.<group>/<version>" (e.g. "meshtimeouts.kuma.io/v1alpha1").
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
	Reason   string `json:"reason"`
}

// target is one resource to list.
type target struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
	inventory  bool
	// keep filters listed objects (nil keeps all).
	keep func(*unstructured.Unstructured) bool
}

// Reader lists objects from one cluster.
type Reader struct {
	dyn  dynamic.Interface
	disc discovery.DiscoveryInterface
}

// NewReader makes a Reader for cfg.
func NewReader(cfg *rest.Config) (*Reader, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Reader{dyn: dyn, disc: disc}, nil
}

// ReadCluster is Config, NewReader and Read in one call, for the doors that read
// a cluster once (meshguard check --kubeconfig, meshguard audit).
func ReadCluster(ctx context.Context, kubeconfig, kubeContext string, o Options) (Result, error) {
	cfg, err := Config(kubeconfig, kubeContext)
	if err != nil {
		return Result{}, err
	}
	r, err := NewReader(cfg)
	if err != nil {
		return Result{}, err
	}
	return r.Read(ctx, o)
}

// Read lists what o asks for. It fails when the cluster cannot be reached or a
// list fails for another reason than a missing kind or a missing permission; a
// list whose continuation expired mid-way (the objects changed too much while
// paging) is started again once.
func (r *Reader) Read(ctx context.Context, o Options) (Result, error) {
	reg := o.Registry
	if reg == nil {
		reg = api.DefaultRegistry()
	}
	targets, skipped, err := r.resolve(reg, o.Inventory, o.Extra)
	if err != nil {
		return Result{}, err
	}
	lists := make([][]*unstructured.Unstructured, len(targets))
	errs := make([]error, len(targets))
	var (
		mu   sync.Mutex
		read int
		wg   sync.WaitGroup
	)
	sem := make(chan struct{}, maxConcurrentLists)
	progress := func(n int) {
		mu.Lock()
		read += n
		total := read
		mu.Unlock()
		if o.Progress != nil {
			o.Progress(total)
		}
	}
	for i, t := range targets {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			lists[i], errs[i] = r.listTarget(ctx, t, o, progress)
		})
	}
	wg.Wait()
	var res Result
	res.Skipped = skipped
	for i, t := range targets {
		if err := errs[i]; err != nil {
			if apierrors.IsForbidden(err) {
				res.Skipped = append(res.Skipped, Skipped{Resource: resourceName(t.gvr), Kind: t.kind, Reason: "forbidden: " + apiMessage(err)})
				continue
			}
			return Result{}, fmt.Errorf("listing %s: %w", resourceName(t.gvr), err)
		}
		for _, u := range lists[i] {
			d := Document(u, t.kind)
			if t.inventory {
				res.Inventory = append(res.Inventory, d)
			} else {
				res.Docs = append(res.Docs, d)
			}
		}
	}
	return res, nil
}

// Document wraps a stored object as the linter's loader would wrap it from a
// file, with File naming its place in the cluster (see Source).
func Document(u *unstructured.Unstructured, kind string) lint.Document {
	if kind == "" {
		kind = u.GetKind()
	}
	place := kind + "/" + u.GetName()
	if ns := u.GetNamespace(); ns != "" {
		place = ns + "/" + place
	}
	return lint.Document{File: Source + place, Line: 1, Object: u}
}

// listTarget lists one resource in every namespace asked for.
func (r *Reader) listTarget(ctx context.Context, t target, o Options, progress func(int)) ([]*unstructured.Unstructured, error) {
	nss := []string{metav1.NamespaceAll}
	if t.namespaced && len(o.Namespaces) > 0 {
		nss = o.Namespaces
	}
	var out []*unstructured.Unstructured
	for _, ns := range nss {
		items, err := r.listAll(ctx, t, ns, o.PageSize, progress)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.GetNamespace() != b.GetNamespace() {
			return a.GetNamespace() < b.GetNamespace()
		}
		return a.GetName() < b.GetName()
	})
	return out, nil
}

// listAll pages through one resource in one namespace ("" for all), restarting
// once if the continue token expires.
func (r *Reader) listAll(ctx context.Context, t target, ns string, pageSize int64, progress func(int)) ([]*unstructured.Unstructured, error) {
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	var res dynamic.ResourceInterface = r.dyn.Resource(t.gvr)
	if t.namespaced && ns != "" {
		res = r.dyn.Resource(t.gvr).Namespace(ns)
	}
	for attempt := 0; ; attempt++ {
		out, err := listPages(ctx, res, t, pageSize, progress)
		if apierrors.IsResourceExpired(err) && attempt == 0 {
			continue
		}
		return out, err
	}
}

func listPages(ctx context.Context, res dynamic.ResourceInterface, t target, pageSize int64, progress func(int)) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	cont := ""
	for {
		list, err := res.List(ctx, metav1.ListOptions{Limit: pageSize, Continue: cont})
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			u := &list.Items[i]
			if t.keep != nil && !t.keep(u) {
				continue
			}
			trim(u, t.inventory)
			out = append(out, u)
		}
		progress(len(list.Items))
		if cont = list.GetContinue(); cont == "" {
			return out, nil
		}
	}
}

// trim drops what no check reads and only costs memory: managed fields, the
// last-applied annotation (a second copy of the object), and the status of
// inventory objects.
func trim(u *unstructured.Unstructured, inventory bool) {
	u.SetManagedFields(nil)
	if a := u.GetAnnotations(); a != nil {
		if _, ok := a[lastApplied]; ok {
			delete(a, lastApplied)
			u.SetAnnotations(a)
		}
	}
	if inventory {
		delete(u.Object, "status")
	}
}

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource + "/" + gvr.Version
	}
	return gvr.Resource + "." + gvr.Group + "/" + gvr.Version
}

// apiMessage is the API server's own message of err, without client-go's prefix.
func apiMessage(err error) string {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		return s.Status().Message
	}
	return strings.TrimSpace(err.Error())
}
