// Command genmanifests writes a realistic mixed manifest stream for measuring how
// `meshguard lint` grows with its input (`go run ./hack/bench growth`, docs/performance.md
// "Linter growth curve"). Of -n documents about 23% are MeshTrafficPermissions,
// many of which select the same proxies (mesh-wide ones in the system namespace,
// namespace-wide ones, and Dataplane-labelled ones that pile up on popular apps,
// each with a `from` list), 27% other Kuma policies (MeshTimeout, MeshRetry,
// MeshHTTPRoute, MeshCircuitBreaker), and the rest Kubernetes Namespaces,
// Deployments and Services, plus a few Linkerd Servers, some of which conflict.
// With -only-mtp every document after the Namespaces is a MeshTrafficPermission
// of the same shape (the input of `meshguard check`'s 10,000-policy benchmark,
// docs/performance.md). With -small-mtp every document after the Namespaces is a
// ~200-byte namespace-wide MeshTrafficPermission with one `from` item (the
// linear-growth input of issue 27: 294,000 of them are 60 MB, under the 64 MiB
// file bound; `go run ./hack/bench growth --small-mtp`). The output depends only on -n,
// -seed, -only-mtp and -small-mtp.
//
//	go run ./hack/genmanifests -n 100000 [-seed 1] [-o file] [-only-mtp|-small-mtp]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
)

// options are the command's flags.
type options struct {
	n       int
	seed    uint64
	out     string
	onlyMTP bool
	// smallMTP writes only small namespace-wide MeshTrafficPermissions.
	smallMTP bool
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 1000, "number of documents to write")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed; the same seed and -n give the same output")
	flag.StringVar(&o.out, "o", "-", "output file, - for standard output")
	flag.BoolVar(&o.onlyMTP, "only-mtp", false, "after the Namespaces, write only MeshTrafficPermissions")
	flag.BoolVar(&o.smallMTP, "small-mtp", false, "after the Namespaces, write only small namespace-wide MeshTrafficPermissions (~200 bytes each)")
	flag.Parse()
	if o.n < 1 || o.n > 10_000_000 {
		fmt.Fprintln(os.Stderr, "genmanifests: -n must be between 1 and 10,000,000")
		os.Exit(2)
	}
	w := io.Writer(os.Stdout)
	if o.out != "-" {
		f, err := os.Create(o.out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genmanifests:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := generate(bw, o); err != nil {
		fmt.Fprintln(os.Stderr, "genmanifests:", err)
		os.Exit(1)
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genmanifests:", err)
		os.Exit(1)
	}
}

// gen holds the shape of the cluster being described.
type gen struct {
	w    io.Writer
	r    *rand.Rand
	nsN  int // workload namespaces
	apps int // apps per namespace
	seq  int
}

// generate writes o.n documents: the Namespaces first, then the other kinds
// interleaved as a repository rendered with kustomize would list them.
func generate(w io.Writer, o options) error {
	g := &gen{w: w, r: rand.New(rand.NewPCG(o.seed, o.seed^0x9e3779b97f4a7c15))}
	g.nsN = max(2, o.n/500)
	g.apps = 40
	written := 0
	emit := func(f func()) bool {
		if written >= o.n {
			return false
		}
		f()
		written++
		return true
	}
	for i := 0; i < g.nsN; i++ {
		if !emit(func() { g.namespace(i) }) {
			return nil
		}
	}
	for written < o.n {
		x := g.r.IntN(1000)
		var f func()
		switch {
		case o.smallMTP:
			f = g.smallMTP
		case o.onlyMTP || x < 230:
			f = g.mtp
		case x < 330:
			f = g.timeout
		case x < 400:
			f = g.retry
		case x < 470:
			f = g.route
		case x < 500:
			f = g.breaker
		case x < 748:
			f = g.deployment
		case x < 998:
			f = g.service
		default:
			f = g.server
		}
		emit(f)
	}
	return nil
}

func (g *gen) printf(format string, args ...any) {
	fmt.Fprintf(g.w, format, args...)
}

func (g *gen) next() int { g.seq++; return g.seq }

func nsName(i int) string { return fmt.Sprintf("team-%03d", i) }

// pickNS chooses a namespace; a few are much busier than the rest.
func (g *gen) pickNS() int {
	if g.r.IntN(4) == 0 {
		return g.r.IntN(min(g.nsN, 3))
	}
	return g.r.IntN(g.nsN)
}

// pickApp chooses an app of a namespace, skewed so popular apps collect many
// policies (roughly Zipf: app k is chosen about 1/(k+1) as often as app 0).
func (g *gen) pickApp() int {
	return int(float64(g.apps) * (g.r.Float64() * g.r.Float64() * g.r.Float64()))
}

func appName(i int) string { return fmt.Sprintf("app-%02d", i) }

func svcTag(ns, app int) string {
	return fmt.Sprintf("%s_%s_svc_8080", appName(app), nsName(ns))
}

func (g *gen) namespace(i int) {
	g.printf("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels:\n    kuma.io/sidecar-injection: enabled\n", nsName(i))
	if i%10 == 0 {
		g.printf("  annotations:\n    config.linkerd.io/default-inbound-policy: all-authenticated\n")
	}
}

// mtp writes a MeshTrafficPermission: 3% mesh-wide in kuma-system, 17%
// namespace-wide, the rest on Dataplanes of one app, with one to four `from` items.
func (g *gen) mtp() {
	id := g.next()
	x := g.r.IntN(100)
	ns := g.pickNS()
	app := g.pickApp()
	switch {
	case x < 3:
		g.printf("---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: mesh-mtp-%d\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  from:\n", id)
	case x < 20:
		g.printf("---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: ns-mtp-%d\n  namespace: %s\nspec:\n  targetRef:\n    kind: Mesh\n  from:\n", id, nsName(ns))
	default:
		g.printf("---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: %s-mtp-%d\n  namespace: %s\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      app: %s\n  from:\n", appName(app), id, nsName(ns), appName(app))
	}
	for k, items := 0, 1+g.r.IntN(4); k < items; k++ {
		g.fromItem()
	}
}

// smallMTP writes a minimal namespace-wide MeshTrafficPermission that allows
// the whole mesh: many of them select the same proxies.
func (g *gen) smallMTP() {
	g.printf("---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: mtp-%d\n  namespace: %s\nspec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n",
		g.next(), nsName(g.pickNS()))
}

// fromItem writes one `from` item: mostly one caller by service tag, sometimes a
// caller with a version, a MeshService, or the whole mesh.
func (g *gen) fromItem() {
	action := "Allow"
	switch y := g.r.IntN(20); {
	case y < 3:
		action = "Deny"
	case y < 4:
		action = "AllowWithShadowDeny"
	}
	ns, app := g.pickNS(), g.pickApp()
	switch z := g.r.IntN(20); {
	case z < 12:
		g.printf("    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: %s\n      default:\n        action: %s\n", svcTag(ns, app), action)
	case z < 16:
		g.printf("    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: %s\n          version: v%d\n      default:\n        action: %s\n", svcTag(ns, app), g.r.IntN(3), action)
	case z < 19:
		g.printf("    - targetRef:\n        kind: MeshService\n        name: %s\n      default:\n        action: %s\n", svcTag(ns, app), action)
	default:
		g.printf("    - targetRef:\n        kind: Mesh\n      default:\n        action: %s\n", action)
	}
}

func (g *gen) timeout() {
	ns := g.pickNS()
	g.printf("---\napiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: timeout-%d\n  namespace: %s\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      app: %s\n  to:\n    - targetRef:\n        kind: MeshService\n        name: %s\n        namespace: %s\n      default:\n        connectionTimeout: 5s\n        http:\n          requestTimeout: %ds\n",
		g.next(), nsName(ns), appName(g.pickApp()), appName(g.pickApp()), nsName(g.pickNS()), 1+g.r.IntN(30))
}

func (g *gen) retry() {
	g.printf("---\napiVersion: kuma.io/v1alpha1\nkind: MeshRetry\nmetadata:\n  name: retry-%d\n  namespace: %s\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      app: %s\n  to:\n    - targetRef:\n        kind: MeshService\n        name: %s\n        namespace: %s\n      default:\n        http:\n          numRetries: %d\n",
		g.next(), nsName(g.pickNS()), appName(g.pickApp()), appName(g.pickApp()), nsName(g.pickNS()), 1+g.r.IntN(5))
}

func (g *gen) route() {
	app := appName(g.pickApp())
	g.printf("---\napiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\nmetadata:\n  name: route-%d\n  namespace: %s\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      app: %s\n  to:\n    - targetRef:\n        kind: MeshService\n        name: %s\n      rules:\n        - matches:\n            - path:\n                type: PathPrefix\n                value: /v%d\n          default:\n            backendRefs:\n              - kind: MeshService\n                name: %s-v%d\n",
		g.next(), nsName(g.pickNS()), appName(g.pickApp()), app, g.r.IntN(3)+1, app, g.r.IntN(3)+1)
}

func (g *gen) breaker() {
	g.printf("---\napiVersion: kuma.io/v1alpha1\nkind: MeshCircuitBreaker\nmetadata:\n  name: breaker-%d\n  namespace: %s\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      app: %s\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        connectionLimits:\n          maxConnections: %d\n",
		g.next(), nsName(g.pickNS()), appName(g.pickApp()), 256*(1+g.r.IntN(8)))
}

func (g *gen) deployment() {
	ns, app := g.r.IntN(g.nsN), g.r.IntN(g.apps)
	g.printf("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s-%d\n  namespace: %s\n  labels:\n    app: %s\nspec:\n  replicas: %d\n  selector:\n    matchLabels:\n      app: %s\n  template:\n    metadata:\n      labels:\n        app: %s\n        version: v%d\n    spec:\n      containers:\n        - name: main\n          image: registry.example.com/%s:1.%d.0\n          ports:\n            - name: http\n              containerPort: 8080\n            - name: admin\n              containerPort: 9990\n          resources:\n            requests:\n              cpu: 100m\n              memory: 128Mi\n",
		appName(app), g.next(), nsName(ns), appName(app), 1+g.r.IntN(3), appName(app), appName(app), g.r.IntN(3), appName(app), g.r.IntN(20))
}

func (g *gen) service() {
	ns, app := g.r.IntN(g.nsN), g.r.IntN(g.apps)
	g.printf("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s-%d\n  namespace: %s\nspec:\n  selector:\n    app: %s\n  ports:\n    - name: http\n      port: 80\n      targetPort: http\n",
		appName(app), g.next(), nsName(ns), appName(app))
}

// server writes a Linkerd Server on an app's http port, by name or number, so that
// some pairs conflict (MG350).
func (g *gen) server() {
	ns, app := g.r.IntN(min(g.nsN, 4)), g.r.IntN(4)
	port := "http"
	if g.r.IntN(2) == 0 {
		port = "8080"
	}
	g.printf("---\napiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata:\n  name: %s-server-%d\n  namespace: %s\nspec:\n  podSelector:\n    matchLabels:\n      app: %s\n  port: %s\n  proxyProtocol: HTTP/1\n",
		appName(app), g.next(), nsName(ns), appName(app), port)
}
