package lint

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve as the render child of the tests that
// bound Helm renders in a process of their own (RenderOptions.Child).
func TestMain(m *testing.M) {
	if os.Getenv(RenderChildEnv) == "1" {
		os.Exit(ServeRenderChild(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// childCommand runs renders in this test binary as a child process.
func childCommand(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}
}
