package lint

import (
	"errors"
	"fmt"
	"time"
)

// DefaultRenderTimeout bounds one kustomize build or Helm render. Local builds
// take milliseconds; the bound is for remote kustomize resources, which
// kustomize fetches over HTTP without a timeout of its own.
const DefaultRenderTimeout = 5 * time.Minute

// renderer runs the kustomize builds and Helm renders of one LoadAll, one
// after the other.
type renderer struct {
	opts    LoadOptions
	timeout time.Duration
	// stuck is set once a render outlived the timeout. Its goroutine may still
	// be inside kustomize, whose OpenAPI schema state is global, so no further
	// render starts in this run.
	stuck bool
	// files reads the plain files of the run's PATHs (see fileSet).
	files *fileSet
}

func newRenderer(o LoadOptions) *renderer {
	r := &renderer{opts: o, timeout: o.RenderTimeout}
	if r.timeout <= 0 {
		r.timeout = DefaultRenderTimeout
	}
	if r.opts.Namespace == "" {
		r.opts.Namespace = "default"
	}
	return r
}

// renderUnits renders the kustomization or chart in dir and hands fn the unit
// of its finished documents.
func (r *renderer) renderUnits(dir string, chart bool, fn func(unit)) {
	if chart {
		fn(r.renderChart(dir).unit())
		return
	}
	fn(r.renderDir(dir).unit())
}

func (b *build) unit() unit {
	return unit{file: b.file, docs: b.docs, done: true}
}

// within runs fn on its own goroutine and gives up after the timeout, calling
// abandon so fn's late side effects stay out of the caller's data. A panic in
// fn (a library bug on odd input) becomes an error.
func (r *renderer) within(abandon func(), fn func() error) error {
	if r.stuck {
		return errors.New("not rendered: an earlier render in this run timed out")
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("internal error while rendering: %v", p)
			}
		}()
		done <- fn()
	}()
	timer := time.NewTimer(r.timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		r.stuck = true
		if abandon != nil {
			abandon()
		}
		return fmt.Errorf("timed out after %v (a remote resource that does not answer?)", r.timeout)
	}
}
