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

// Stream parses the documents of paths (as LoadAll names them, rendering as lo
// says) as they are read, runs work on each while its tree exists, on up to
// GOMAXPROCS goroutines, and hands the results to use in input order, on the
// calling goroutine. Nothing of a document outlives work but what work returns.
// Documents have File and Line set, not Index. It returns the documents it left
// out (not Kubernetes objects, files no kustomization uses), in input order.
func Stream[R any](paths []string, stdin io.Reader, lo LoadOptions, work func(*Document) R, use func(R)) []Skip {
	type job struct {
		seq int
		u   unit
	}
	type done struct {
		seq   int
		rs    []R
		skips []Skip
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	jobs := make(chan job, workers)
	results := make(chan done, workers)
	tokens := make(chan struct{}, streamWindow)
	go func() {
		seq := 0
		eachUnit(paths, stdin, lo, func(u unit) {
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
				u.parse(false)
				d := done{seq: j.seq, rs: make([]R, 0, len(u.docs))}
				for i := range u.docs {
					doc := &u.docs[i]
					if !u.done { // a render's documents carry their source file
						doc.File = u.file
					}
					if doc.skip != "" {
						d.skips = append(d.skips, Skip{File: doc.File, Line: doc.Line, Reason: doc.skip})
						continue
					}
					d.rs = append(d.rs, work(doc))
				}
				results <- d
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int]done{}
	next := 0
	var skipped []Skip
	for d := range results {
		pending[d.seq] = d
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			for _, r := range p.rs {
				use(r)
			}
			skipped = append(skipped, p.skips...)
			<-tokens
		}
	}
	return skipped
}

// Run is Lint over paths (files, directories, "-" for stdin), streamed: each
// document is checked as it is read and only its findings and the cross-document
// stages' summaries are kept. progress, when not nil, is called with the number of
// documents handled so far, on the calling goroutine.
func Run(paths []string, stdin io.Reader, lo LoadOptions, o Options, progress func(docs int)) ([]Finding, Summary, []Skip) {
	stages := o.newStageSets()
	n := 0
	skipped := Stream(paths, stdin, lo, func(d *Document) docResult { return checkDoc(d, o, stages.summarizers()) }, func(r docResult) {
		r.add(stages)
		n++
		if progress != nil {
			progress(n)
		}
	})
	out, sum := finish(stages, n)
	sum.Skipped = len(skipped)
	return out, sum, skipped
}
