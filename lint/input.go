package lint

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// minChunksPerWorker keeps small inputs on one goroutine, where starting workers
// would cost more than it saves.
const minChunksPerWorker = 32

// Load reads every path (a file, a directory searched recursively for .yaml, .yml
// and .json files, or "-" for stdin) and returns its documents in input order.
// It never fails as a whole: unreadable files and unparsable documents come back
// as Documents with Err set, so the caller can report them next to the findings
// of every other document. Documents are parsed in parallel; the order of the
// result does not depend on it.
func Load(paths []string, stdin io.Reader) []Document {
	var units []unit
	eachUnit(paths, stdin, func(u unit) { units = append(units, u) })
	return assemble(units)
}

// eachUnit calls fn with every unit of paths in input order: the chunks of each
// file, and a unit with err for a file that cannot be read.
func eachUnit(paths []string, stdin io.Reader, fn func(unit)) {
	for _, p := range paths {
		if p == "-" {
			splitReader(StdinName, stdin, fn)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			fn(unit{file: p, err: err})
			continue
		}
		if !info.IsDir() {
			fileUnits(p, fn)
			continue
		}
		for _, f := range walkDir(p) {
			if f.err != nil {
				fn(unit{file: f.path, err: f.err})
				continue
			}
			fileUnits(f.path, fn)
		}
	}
}

// LoadBytes parses the content of one file named name; tests, fuzzers and
// callers holding the bytes already use it directly.
func LoadBytes(name string, data []byte) []Document {
	return assemble(splitUnits(name, data))
}

// unit is one piece of work: a chunk of a file, or a file that could not be read.
type unit struct {
	file  string
	chunk chunk
	err   error
	// oversize is the size of a chunk past MaxDocumentBytes that was not kept;
	// chunk.line is then its first line with content.
	oversize int
	docs     []Document
}

type walked struct {
	path string
	err  error
}

// walkDir lists the manifest files under root in lexical order, skipping hidden
// files and directories (.git, editor state, CI configs that are not policies).
func walkDir(root string) []walked {
	var out []walked
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out = append(out, walked{path: p, err: err})
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		hidden := p != root && strings.HasPrefix(d.Name(), ".")
		if d.IsDir() {
			if hidden {
				return fs.SkipDir
			}
			return nil
		}
		if hidden || !isManifest(d.Name()) {
			return nil
		}
		out = append(out, walked{path: p})
		return nil
	})
	return out
}

func isManifest(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func fileUnits(path string, fn func(unit)) {
	f, err := os.Open(path)
	if err != nil {
		fn(unit{file: path, err: err})
		return
	}
	defer f.Close()
	splitReader(path, f, fn)
}

func splitUnits(name string, data []byte) []unit {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	chunks := splitDocuments(data)
	out := make([]unit, len(chunks))
	for i, c := range chunks {
		out[i] = unit{file: name, chunk: c}
	}
	return out
}

// assemble parses all units, on up to GOMAXPROCS goroutines, and concatenates
// their Documents in input order, numbering them per file.
func assemble(units []unit) []Document {
	workers := min(runtime.GOMAXPROCS(0), len(units)/minChunksPerWorker)
	if workers <= 1 {
		for i := range units {
			units[i].parse()
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(units); i = int(next.Add(1) - 1) {
					units[i].parse()
				}
			})
		}
		wg.Wait()
	}
	var out []Document
	index, file := 0, ""
	for i, u := range units {
		if i == 0 || u.file != file {
			index, file = 0, u.file
		}
		for _, d := range u.docs {
			d.File, d.Index = u.file, index
			index++
			out = append(out, d)
		}
	}
	return out
}

func (u *unit) parse() {
	if u.err != nil {
		u.docs = []Document{{Err: u.err}}
		return
	}
	if u.oversize > 0 {
		l := &loader{}
		l.fail(u.chunk.line, u.chunk.line, oversizeError(u.oversize))
		u.docs = l.docs
		return
	}
	u.docs = parseChunk(u.chunk)
	u.chunk = chunk{} // let the bytes go once parsed
}
