package lint

import (
	"bytes"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pieceReader returns its data in pieces of random length (at least one byte),
// so that lines, CRLFs and multi-byte line breaks are cut everywhere.
type pieceReader struct {
	data []byte
	r    *rand.Rand
	max  int
}

func (p *pieceReader) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(b), len(p.data), 1+p.r.Intn(p.max))
	copy(b, p.data[:n])
	p.data = p.data[n:]
	return n, nil
}

// randomStream draws a file from the pieces the splitter cares about: markers
// with and without content, directives, comments, blank lines and every line
// break yaml.v3 counts, sometimes after a byte order mark.
func randomStream(r *rand.Rand) []byte {
	lines := []string{"---", "--- !tag", "...", "%YAML 1.2", "# c", "", "  ", "a: 1", "- x", "----", "k: '---'", " ---", "...x"}
	breaks := []string{"\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029"}
	var b strings.Builder
	if r.Intn(5) == 0 {
		b.WriteString("\xef\xbb\xbf")
	}
	for n := r.Intn(30); n > 0; n-- {
		b.WriteString(lines[r.Intn(len(lines))])
		if n > 1 || r.Intn(2) == 0 {
			b.WriteString(breaks[r.Intn(len(breaks))])
		}
	}
	return []byte(b.String())
}

// TestSplitReaderMatchesSplitDocuments: the streaming splitter cuts every input,
// read in pieces of any size, into the chunks splitDocuments cuts it into.
func TestSplitReaderMatchesSplitDocuments(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for iter := 0; iter < 5000; iter++ {
		data := randomStream(r)
		var want []chunk
		for _, u := range splitUnits("f", data) {
			want = append(want, u.chunk)
		}
		var got []chunk
		splitReader("f", &pieceReader{data: data, r: r, max: 1 + r.Intn(8)}, func(u unit) {
			if u.err != nil || u.file != "f" {
				t.Fatalf("unit %+v", u)
			}
			got = append(got, u.chunk)
		})
		if d := cmp.Diff(want, got, cmp.AllowUnexported(chunk{})); d != "" {
			t.Fatalf("iter %d, input %q (-want +got):\n%s", iter, data, d)
		}
	}
}

// TestSplitReaderOversize: a document past MaxDocumentBytes is reported as Load
// reports it (same line, same message) without being kept, and the documents
// around it are read.
func TestSplitReaderOversize(t *testing.T) {
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
	for _, tc := range []struct {
		name, big string
	}{
		{"many lines", strings.Repeat("# pad\n", 10) + "data:\n" + strings.Repeat("  k: "+strings.Repeat("v", 1000)+"\n", MaxDocumentBytes/1000+10)},
		{"one long line", "data: \"" + strings.Repeat("x", MaxDocumentBytes+3*readBlock) + "\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := head + "---\n# leading comment\n" + tc.big + "---\n" + head
			want := LoadBytes("f", []byte(in))
			var units []unit
			splitReader("f", bytes.NewReader([]byte(in)), func(u unit) { units = append(units, u) })
			got := assemble(units).Docs
			if len(got) != 3 || len(want) != 3 {
				t.Fatalf("got %d documents, want 3 (Load: %d)", len(got), len(want))
			}
			for i := range got {
				w, g := want[i], got[i]
				if g.Line != w.Line || g.ErrLine != w.ErrLine || (g.Err == nil) != (w.Err == nil) || (g.Err != nil && g.Err.Error() != w.Err.Error()) {
					t.Errorf("document %d: got line %d/%d err %v, want %d/%d %v", i, g.Line, g.ErrLine, g.Err, w.Line, w.ErrLine, w.Err)
				}
			}
			if units[1].chunk.data != nil {
				t.Errorf("the oversized chunk was kept (%d bytes)", len(units[1].chunk.data))
			}
		})
	}
}

// FuzzSplitReader: on any input, read in pieces of any size, the streaming
// splitter cuts the chunks splitDocuments cuts.
func FuzzSplitReader(f *testing.F) {
	r := rand.New(rand.NewSource(9))
	for range 20 {
		f.Add(randomStream(r), uint8(r.Intn(16)))
	}
	f.Fuzz(func(t *testing.T, data []byte, piece uint8) {
		var want, got []chunk
		for _, u := range splitUnits("f", data) {
			want = append(want, u.chunk)
		}
		splitReader("f", &pieceReader{data: data, r: rand.New(rand.NewSource(int64(piece))), max: 1 + int(piece)}, func(u unit) {
			got = append(got, u.chunk)
		})
		if d := cmp.Diff(want, got, cmp.AllowUnexported(chunk{})); d != "" {
			t.Fatalf("input %q (-want +got):\n%s", data, d)
		}
	})
}
