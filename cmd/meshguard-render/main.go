// Command meshguard-render renders one Helm chart or kustomize build for
// meshguard, which runs it as a child process: a request on standard input, the
// rendered objects on standard output (docs/lint.md, "The renderer"). It is a
// program of its own so that meshguard does not link Helm and kustomize's
// builder, whose package initialisers would otherwise run on every meshguard
// start, and so that a render runs under its own memory limit and deadline.
// It ships beside meshguard: release archives, the container image, go install.
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/meshguard/meshguard/internal/render"
	"github.com/meshguard/meshguard/internal/render/child"
)

// version is set by release builds (-ldflags "-X main.version=v1.2.3"); the
// linker can only set package variables.
var version string

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "--version", "version":
			fmt.Printf("%s %s (render protocol %d)\n", render.ExecutableName, buildVersion(), render.ProtocolVersion)
			os.Exit(0)
		default:
			fmt.Fprintf(os.Stderr, "%s is run by meshguard to render charts and kustomizations; it reads one request on standard input and takes no arguments (only --version)\n", render.ExecutableName)
			os.Exit(2)
		}
	}
	os.Exit(child.Serve(os.Stdin, os.Stdout, os.Stderr))
}

// buildVersion is the linker-set version, else the module version go install
// stamped, else "devel".
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
