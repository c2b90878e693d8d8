// Package auditload is `bench audit`: it measures `meshguard audit` on a cluster that stores many
// policies (issue 19: 10,000 stored policies audited in under 10 s on 2 cores).
// It starts a local control plane (e2e/localcp, the meshes' real CRDs, no
// meshguard), stores the objects of hack/genmanifests (about half policies, the
// rest Namespaces, Deployments and Services) with parallel creates, then audits
// them in process -runs times, timing the read (list requests, paged) and the
// lint separately, and optionally the report writing.
//
//	go run ./hack/bench audit [-policies 10000] [-workers 16] [-runs 3] [-write-reports] [-cluster KUBECONFIG]
//
// With -cluster KUBECONFIG it uses that cluster instead (objects are created there; use
// a throwaway cluster). The figures depend on the machine's load: on a shared
// machine report them with its load average.
package auditload

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/audit"
	"github.com/meshguard/meshguard/e2e/crds"
	"github.com/meshguard/meshguard/e2e/localcp"
	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/live"
	meshschema "github.com/meshguard/meshguard/schema"
)

type options struct {
	policies, workers, runs int
	writeReports            bool
	kubeconfig              string
	stdout                  io.Writer
}

// Main runs `bench audit` with its arguments, writing the figures to stdout.
func Main(args []string, stdout io.Writer) error {
	o := options{stdout: stdout}
	fs := flag.NewFlagSet("bench audit", flag.ContinueOnError)
	fs.IntVar(&o.policies, "policies", 10000, "policies to store (about as many other objects come with them)")
	fs.IntVar(&o.workers, "workers", 16, "parallel creates")
	fs.IntVar(&o.runs, "runs", 3, "audits to time")
	fs.BoolVar(&o.writeReports, "write-reports", false, "also build and write OpenReports reports (installs their CRDs)")
	fs.StringVar(&o.kubeconfig, "cluster", "", "use this cluster instead of starting a local control plane")
	if err := kit.Parse(fs, args); err != nil {
		return err
	}
	return run(o)
}

func run(o options) error {
	ctx := context.Background()
	kubeconfig := o.kubeconfig
	if kubeconfig == "" {
		dir, err := os.MkdirTemp("", "meshguard-auditload-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		installed, err := crds.Installed(api.DefaultRegistry())
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "starting kube-apiserver and etcd")
		cp, err := localcp.Start(localcp.Options{Dir: dir, CRDs: installed})
		if err != nil {
			return err
		}
		defer cp.Stop()
		kubeconfig = cp.Kubeconfig
	}
	cfg, err := live.Config(kubeconfig, "")
	if err != nil {
		return err
	}
	objs, policies, err := manifests(o.policies)
	if err != nil {
		return err
	}
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = 5000, 5000
	dyn, err := dynamic.NewForConfig(fast)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := store(ctx, dyn, objs, o.workers); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "stored %d objects (%d policies) in %.1fs with %d workers\n", len(objs), policies, time.Since(start).Seconds(), o.workers)
	if o.writeReports {
		if err := installReportCRDs(ctx, dyn); err != nil {
			return err
		}
	}
	return measure(ctx, cfg, dyn, o)
}

// manifests are hack/genmanifests' objects, enough for n policies.
func manifests(n int) ([]*unstructured.Unstructured, int, error) {
	root, err := localcp.RepoRoot()
	if err != nil {
		return nil, 0, err
	}
	out, err := exec.Command("go", "run", filepath.Join(root, "hack", "genmanifests"), "-n", fmt.Sprint(n*2+n/4)).Output()
	if err != nil {
		return nil, 0, fmt.Errorf("genmanifests: %w", err)
	}
	reg := api.DefaultRegistry()
	var objs []*unstructured.Unstructured
	policies := 0
	for _, d := range lint.LoadBytes("genmanifests", out) {
		if d.Err != nil || d.Object == nil {
			continue
		}
		isPolicy := reg.Lookup(d.Object.GroupVersionKind()) != nil
		if isPolicy {
			if policies == n {
				continue
			}
			policies++
		}
		objs = append(objs, d.Object)
	}
	return objs, policies, nil
}

// store creates the objects, Namespaces first, with parallel workers.
func store(ctx context.Context, dyn dynamic.Interface, objs []*unstructured.Unstructured, workers int) error {
	var nss, rest []*unstructured.Unstructured
	for _, u := range objs {
		switch u.GetKind() {
		case api.KindNamespace:
			nss = append(nss, u)
		case "Service":
			// envtest's service range has 254 addresses; headless Services need none.
			_ = unstructured.SetNestedField(u.Object, "None", "spec", "clusterIP")
			rest = append(rest, u)
		default:
			rest = append(rest, u)
		}
	}
	for _, batch := range [][]*unstructured.Unstructured{nss, rest} {
		if err := parallelCreate(ctx, dyn, batch, workers); err != nil {
			return err
		}
	}
	return nil
}

func parallelCreate(ctx context.Context, dyn dynamic.Interface, objs []*unstructured.Unstructured, workers int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(objs); i = int(next.Add(1) - 1) {
				u := objs[i]
				gvr := gvrOf(u)
				var res dynamic.ResourceInterface = dyn.Resource(gvr)
				if ns := u.GetNamespace(); ns != "" {
					res = dyn.Resource(gvr).Namespace(ns)
				}
				_, err := res.Create(ctx, u, metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("create %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// gvrOf finds the resource of an object: the registry's plural, or the
// lower-case plural of a core or apps kind.
func gvrOf(u *unstructured.Unstructured) schema.GroupVersionResource {
	gvk := u.GroupVersionKind()
	if k := api.DefaultRegistry().Lookup(gvk); k != nil {
		return k.GVR()
	}
	return gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s")
}

func installReportCRDs(ctx context.Context, dyn dynamic.Interface) error {
	root, err := localcp.RepoRoot()
	if err != nil {
		return err
	}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	for _, f := range []string{"openreports.io_reports.yaml", "openreports.io_clusterreports.yaml"} {
		raw, err := os.ReadFile(filepath.Join(root, "charts", "meshguard", "files", "report-crds", f))
		if err != nil {
			return err
		}
		docs := lint.LoadBytes(f, raw)
		if len(docs) != 1 || docs[0].Object == nil {
			return fmt.Errorf("%s: not one CRD", f)
		}
		if _, err := dyn.Resource(crdGVR).Create(ctx, docs[0].Object, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	time.Sleep(3 * time.Second) // the API server starts serving a new CRD shortly after
	return nil
}

// measure audits -runs times and prints the figures.
func measure(ctx context.Context, cfg *rest.Config, dyn dynamic.Interface, o options) error {
	s := api.DefaultSettings()
	if err := meshschema.LoadInto(&s); err != nil {
		return err
	}
	eng := lint.Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: lint.CrossDocumentInventory(s, "default", &lint.Inventory{Cluster: true})}
	reader, err := live.NewReader(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.stdout, "GOMAXPROCS=%d\n", runtime.GOMAXPROCS(0))
	for i := range o.runs {
		t0 := time.Now()
		read, err := reader.Read(ctx, live.Options{Inventory: true})
		if err != nil {
			return err
		}
		t1 := time.Now()
		docs := append(read.Docs, read.Inventory...)
		fs, sum := lint.Lint(docs, eng)
		t2 := time.Now()
		fmt.Fprintf(o.stdout, "run %d: read %d policies + %d inventory in %.2fs, linted in %.2fs, total %.2fs (%d errors, %d warnings)\n",
			i+1, len(read.Docs), len(read.Inventory), t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), t2.Sub(t0).Seconds(), sum.Errors, sum.Warnings)
		_ = fs
		t3 := time.Now()
		r, err := audit.Run(ctx, reader, audit.Options{Lint: eng})
		if err != nil {
			return err
		}
		fmt.Fprintf(o.stdout, "run %d: audit.Run %.2fs (%d policies)\n", i+1, time.Since(t3).Seconds(), r.Policies)
		if o.writeReports {
			t4 := time.Now()
			ro := audit.ReportOptions{Format: audit.FormatOpenReports, Now: time.Now()}
			w, err := audit.Write(ctx, dyn, audit.Build(r, ro), ro)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.stdout, "run %d: wrote %d reports in %.2fs\n", i+1, len(w.Applied), time.Since(t4).Seconds())
		}
	}
	return nil
}
