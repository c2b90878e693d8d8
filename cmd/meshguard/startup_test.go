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

// initRun is this test binary started as meshguard --version (TestMain's
// MESHGUARD_AS_CLI), with env added: it links every package meshguard links (plus
// the test's own), so its initialisers are the ones every meshguard start runs.
// As the CLI it skips TestMain's build of meshguard-render, which took 40 s of
// each run on a loaded 2-core machine.
func initRun(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "--version")
	cmd.Env = append(append(os.Environ(), "MESHGUARD_AS_CLI=1"), env...)
	return cmd
}

// readInitTrace runs initRun with GODEBUG=inittrace=1 and reads its lines.
func readInitTrace(t *testing.T) []initCost {
	t.Helper()
	cmd := initRun(t, "GODEBUG=inittrace=1")
	exe := cmd.Path
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

// notLinked are module path prefixes meshguard must not link: their packages'
// initialisers would run on every start of every command. Helm (its chartutil
// links santhosh-tekuri/jsonschema, whose init compiles five drafts'
// metaschemas) and kustomize's builder run in meshguard-render instead;
// govalidator's checks are validate's own isURL and isFilePath.
var notLinked = []string{
	"helm.sh/",
	"github.com/santhosh-tekuri/jsonschema",
	"github.com/asaskevich/govalidator",
	"sigs.k8s.io/kustomize/api/krusty",
}

// TestNotLinked: `go list -deps ./cmd/meshguard` names none of notLinked, so
// rendering libraries load only in the renderer's process, on first use.
func TestNotLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps named %d packages; is this the meshguard command?", len(deps))
	}
	for _, pkg := range deps {
		for _, bad := range notLinked {
			if strings.HasPrefix(pkg, bad) {
				t.Errorf("meshguard links %s; it belongs in meshguard-render (internal/render/child) or nowhere", pkg)
			}
		}
	}
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

// TestNoCollectionDuringInit: the collector stays off while packages initialise
// (internal/gcstart), so no start pays for collecting their few megabytes of
// garbage before main. gctrace and inittrace write to the same stream in order.
// The packages initialised before the hold allocate far below the runtime's
// first 4 MB heap goal, so none may run before it either.
func TestNoCollectionDuringInit(t *testing.T) {
	cmd := initRun(t, "GODEBUG=inittrace=1,gctrace=1", "GOGC=", "GOMEMLIMIT=")
	exe := cmd.Path
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", exe, err, out)
	}
	lines := strings.Split(string(out), "\n")
	lastInit, held := -1, false
	for i, l := range lines {
		if strings.HasPrefix(l, "init ") {
			lastInit = i
			held = held || strings.HasPrefix(l, "init github.com/meshguard/meshguard/internal/gcstart ")
		}
	}
	if !held {
		t.Fatalf("inittrace names no internal/gcstart; does package main import it?\n%.2000s", out)
	}
	for _, l := range lines[:lastInit] {
		if strings.HasPrefix(l, "gc ") {
			t.Errorf("a collection ran during initialisation: %s", l)
		}
	}
}

// TestOneFileLintCollectsNothing: a one-file lint, what pre-commit runs on every
// commit, ends before its heap reaches the collector's first goal: the hold on the
// collector during initialisation is released straight to lint's growth target
// (releaseGC), not to the default whose 4 MB goal the initialisers' heap already
// exceeds. The count of collections, not a time, is asserted.
func TestOneFileLintCollectsNothing(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"lint", "-o", "json", "../../examples/valid/02-producer-backend.yaml"},
		{"check", "--from", "kuma.io/service=web", "--to", "kuma.io/service=backend", "../../examples/valid/02-producer-backend.yaml"},
	} {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), "MESHGUARD_AS_CLI=1", "GODEBUG=gctrace=1", "GOGC=", "GOMEMLIMIT=")
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), `"documents": 3`) && !strings.Contains(string(out), "backend") {
			t.Fatalf("%v did not run:\n%.2000s", args, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "gc ") {
				t.Errorf("%v: a collection ran: %s", args[0], l)
			}
		}
	}
}
