package inspectscale

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// snapshot is one tree the peer's go.mod points a replace at: a tag of a git
// directory, unpacked (only path, when set) under .cache/kumapeer/dir.
type snapshot struct {
	git, tag, path, dir string
}

// buildPeer unpacks the snapshots of kumahq/kuma v2.14.3 and of Kuma's
// go-control-plane fork where hack/bench/kumapeer/go.mod expects them
// (.cache/kumapeer/), then builds the peer there; it returns the binary.
func buildPeer(o options) (string, error) {
	root := filepath.Join(".cache", "kumapeer")
	for _, s := range []snapshot{
		{o.kumaGit, "v2.14.3", "", "kuma"},
		{o.gcpGit, "v0.14.0-kong-1", "", "gcp"},
		{o.gcpGit, "envoy/v1.37.0-kong-1", "envoy", "gcp-envoy"},
		{o.gcpGit, "contrib/v1.36.0-kong-1", "contrib", "gcp-contrib"},
		{o.gcpGit, "ratelimit/v0.1.0-kong-1", "ratelimit", "gcp-ratelimit"},
	} {
		dir := filepath.Join(root, s.dir)
		if _, err := os.Stat(dir); err == nil {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		archive := fmt.Sprintf("git -C %q archive %q %s | tar -x -C %q", s.git, s.tag, s.path, dir)
		if out, err := exec.Command("bash", "-o", "pipefail", "-c", archive).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("unpacking %s of %s: %v\n%s", s.tag, s.git, err, out)
		}
	}
	binary, err := filepath.Abs(filepath.Join(root, "kumapeer"))
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = filepath.Join("hack", "bench", "kumapeer")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in hack/bench/kumapeer: %v\n%s", err, out)
	}
	return binary, nil
}
