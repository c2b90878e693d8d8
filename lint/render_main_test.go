package lint

import (
	"os"
	"testing"

	"github.com/meshguard/meshguard/internal/render/rendertest"
)

// TestMain builds the real meshguard-render once and points $MESHGUARD_RENDERER
// at it: every Helm render and kustomize build of these tests runs there, as
// it does for meshguard.
func TestMain(m *testing.M) {
	os.Exit(rendertest.Main(m.Run))
}

// rendererExe is the renderer TestMain built, for tests that name it
// explicitly (RenderOptions.Renderer) rather than through the lookup.
func rendererExe(t *testing.T) string {
	t.Helper()
	exe := os.Getenv(RendererEnv)
	if exe == "" {
		t.Fatal("$" + RendererEnv + " is not set; TestMain builds the renderer")
	}
	return exe
}
