package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// heavyInitBytes is what one package's initialiser may allocate before a package
// counts as heavy: every start of every command pays it (docs/performance.md,
// "Start-up"). Allocations are deterministic, unlike clock times on a shared
// machine.
const heavyInitBytes = 512 << 10

// ownInitBytes bounds the initialisers of meshguard's own packages: tables
// belong in functions called on first use, not in package variables.
const ownInitBytes = 256 << 10

// knownHeavyInits are the packages whose initialisers are heavy today, each
// with what links it. They are the start-up debt docs/performance.md
// describes; the test fails when one more appears, and when one of these is
// no longer heavy, so the list stays true.
func knownHeavyInits() map[string]string {
	return map[string]string{
		// Helm's chartutil (values.schema.json checks) links it; its init
		// compiles the metaschemas of five JSON Schema drafts.
		"github.com/santhosh-tekuri/jsonschema/v6": "helm.sh/helm/v3/pkg/chartutil",
		// Kuma's own validators use it (URL and path checks, for parity);
		// its init compiles its regular expressions.
		"github.com/asaskevich/govalidator": "github.com/meshguard/meshguard/validate",
		// Every built-in API type registered in client-go's scheme:
		// controller-runtime (serve), client-go's discovery and typed clients.
		"k8s.io/client-go/kubernetes/scheme": "sigs.k8s.io/controller-runtime, k8s.io/client-go/discovery",
	}
}

// initCost is one line of GODEBUG=inittrace=1.
type initCost struct {
	pkg          string
	bytes, alloc int
}

// readInitTrace runs this test binary with no test and GODEBUG=inittrace=1: it
// links every package meshguard links (plus the test's own), so its
// initialisers are the ones every meshguard start runs.
func readInitTrace(t *testing.T) []initCost {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", exe, err, out)
	}
	re := regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)
	var costs []initCost
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		costs = append(costs, initCost{pkg: m[1], bytes: b, alloc: a})
	}
	if len(costs) < 100 {
		t.Fatalf("inittrace printed %d initialisers; is GODEBUG=inittrace=1 honoured?\n%s", len(costs), out)
	}
	return costs
}

// TestInitCost keeps what every start costs before any work from growing: no
// new heavy package initialiser, and meshguard's own stay light.
func TestInitCost(t *testing.T) {
	known := knownHeavyInits()
	var heavy []string
	for _, c := range readInitTrace(t) {
		if strings.HasPrefix(c.pkg, "github.com/meshguard/meshguard/") && c.bytes > ownInitBytes {
			t.Errorf("%s allocates %d bytes at init (at most %d): build its tables on first use", c.pkg, c.bytes, ownInitBytes)
		}
		if c.bytes > heavyInitBytes {
			heavy = append(heavy, c.pkg)
			if _, ok := known[c.pkg]; !ok {
				t.Errorf("%s allocates %d bytes (%d allocations) at init, on every start of every command; load it on first use, or name it in knownHeavyInits with what links it", c.pkg, c.bytes, c.alloc)
			}
		}
	}
	for pkg := range known {
		if !slices.Contains(heavy, pkg) {
			t.Errorf("%s is no longer a heavy initialiser: take it off knownHeavyInits and docs/performance.md", pkg)
		}
	}
}
