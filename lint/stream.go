package lint

import (
	"io"
	"runtime"
	"sync"
)

// streamWindow bounds the chunks read but not yet handed to the caller: a slow
// document holds back at most this many finished ones, so memory stays bounded
// by what the caller keeps, not by the input.
const streamWindow = 256

// Stream parses the documents of paths (as Load names them) as they are read, runs
// work on each while its tree exists, on up to GOMAXPROCS goroutines, and hands
// the results to use in input order, on the calling goroutine. Nothing of a
// document outlives work but what work returns. Documents have File and Line set,
// not Index.
func Stream[R any](paths []string, stdin io.Reader, work func(*Document) R, use func(R)) {
	type job struct {
		seq int
		u   unit
	}
	type done struct {
		seq int
		rs  []R
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	jobs := make(chan job, workers)
	results := make(chan done, workers)
	tokens := make(chan struct{}, streamWindow)
	go func() {
		seq := 0
		eachUnit(paths, stdin, func(u unit) {
			tokens <- struct{}{}
			jobs <- job{seq, u}
			seq++
		})
		close(jobs)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				u := j.u
				u.parse()
				rs := make([]R, len(u.docs))
				for i := range u.docs {
					u.docs[i].File = u.file
					rs[i] = work(&u.docs[i])
				}
				results <- done{j.seq, rs}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int][]R{}
	next := 0
	for d := range results {
		pending[d.seq] = d.rs
		for {
			rs, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			for _, r := range rs {
				use(r)
			}
			<-tokens
		}
	}
}

// Run is Lint over paths (files, directories, "-" for stdin), streamed: each
// document is checked as it is read and only its findings and the cross-document
// stages' summaries are kept. progress, when not nil, is called with the number of
// documents handled so far, on the calling goroutine.
func Run(paths []string, stdin io.Reader, o Options, progress func(docs int)) ([]Finding, Summary) {
	stages := o.stages()
	var out []Finding
	n := 0
	Stream(paths, stdin, func(d *Document) docResult { return checkDoc(d, o, stages) }, func(r docResult) {
		out = r.add(out, stages)
		n++
		if progress != nil {
			progress(n)
		}
	})
	return finish(out, stages, n)
}
