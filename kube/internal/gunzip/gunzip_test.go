package gunzip

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// samples returns inputs of the shapes the compressor treats apart:
// nothing, short text, incompressible bytes (stored blocks), long runs
// (overlapping matches), and repetitive JSON larger than the window.
func samples() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 100<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	var objects strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&objects, `{"metadata":{"name":"cm-%05d","namespace":"default","uid":"%08x-5f1e","labels":{"app":"web","group":"%d"}},"data":{"k":"%x"}}`,
			i, rng.Uint32(), i%10, rng.Uint64())
	}
	mixed := append(bytes.Repeat([]byte("ab"), 5000), random[:5000]...)
	mixed = append(mixed, bytes.Repeat([]byte{0}, 70000)...)
	return map[string][]byte{
		"empty":   nil,
		"short":   []byte("hello, gzip"),
		"random":  random,
		"runs":    mixed,
		"objects": []byte(objects.String()),
	}
}

// compress compresses data with compress/gzip at level, flushing after
// every flushEvery bytes when it is positive.
func compress(t testing.TB, data []byte, level, flushEvery int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	for len(data) > 0 {
		n := len(data)
		if flushEvery > 0 {
			n = min(n, flushEvery)
		}
		if _, err := w.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		if flushEvery > 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		data = data[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// inflate reads all of a Reader of r.
func inflate(r io.Reader) ([]byte, error) {
	z, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// Every level and block shape the compressor writes inflates to what was
// compressed, whatever sizes the source's reads return.
func TestInflatesWhatCompressGzipWrites(t *testing.T) {
	readers := map[string]func([]byte) io.Reader{
		"whole":    func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"halves":   func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data+EOF": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
	}
	levels := []int{gzip.NoCompression, gzip.BestSpeed, gzip.DefaultCompression, gzip.BestCompression, gzip.HuffmanOnly}
	for name, data := range samples() {
		for _, level := range levels {
			for _, flushEvery := range []int{0, 1000} {
				compressed := compress(t, data, level, flushEvery)
				for rname, reader := range readers {
					if rname == "one byte" && len(data) > 20000 {
						continue // slow, and the halves cover short reads
					}
					t.Run(fmt.Sprintf("%s/level=%d/flush=%d/%s", name, level, flushEvery, rname), func(t *testing.T) {
						got, err := inflate(reader(compressed))
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, data) {
							t.Fatalf("inflated %d bytes that differ from the %d compressed", len(got), len(data))
						}
					})
				}
			}
		}
	}
}

// Members follow one another, with the header fields gzip allows.
func TestMembers(t *testing.T) {
	var buf bytes.Buffer
	var want []byte
	for i, h := range []gzip.Header{{}, {Name: "a.txt", Comment: "from a test", Extra: []byte{1, 2, 3}}, {Name: strings.Repeat("n", 511)}} {
		w := gzip.NewWriter(&buf)
		w.Header = h
		data := bytes.Repeat(fmt.Appendf(nil, "member %d ", i), 100*(i+1))
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		want = append(want, data...)
	}
	got, err := inflate(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("inflated %q, want %q", got, want)
	}
}

// withHeaderCRC sets the header checksum flag of a member with no other
// flags, adding the checksum, or a wrong one.
func withHeaderCRC(member []byte, wrong bool) []byte {
	head := bytes.Clone(member[:10])
	head[3] |= flagHeaderCRC
	crc := crc16(head)
	if wrong {
		crc++
	}
	return append(append(head, byte(crc), byte(crc>>8)), member[10:]...)
}

func TestErrors(t *testing.T) {
	good := compress(t, []byte(strings.Repeat("some data, ", 100)), gzip.DefaultCompression, 0)
	corrupt := func(i int, b byte) []byte { c := bytes.Clone(good); c[i] ^= b; return c }
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, io.EOF},
		{"header cut short", good[:5], io.ErrUnexpectedEOF},
		{"data cut short", good[:len(good)/2], io.ErrUnexpectedEOF},
		{"trailer cut short", good[:len(good)-3], io.ErrUnexpectedEOF},
		{"not gzip", []byte("plain text, long enough"), ErrHeader},
		{"not deflate", corrupt(2, 1), ErrHeader},
		{"checksum", corrupt(len(good)-6, 1), ErrChecksum},
		{"size", corrupt(len(good)-2, 1), ErrChecksum},
		{"block type 3", append(bytes.Clone(good[:10]), 0x07, 0, 0, 0), ErrCorrupt},
		{"stored length", append(bytes.Clone(good[:10]), 0x01, 5, 0, 5, 0), ErrCorrupt},
		{"header checksum", withHeaderCRC(good, true), ErrHeader},
		{"garbage after a member", append(bytes.Clone(good), "garbage..."...), ErrHeader},
		{"half a header after a member", append(bytes.Clone(good), 0x1f, 0x8b), io.ErrUnexpectedEOF},
		{"name too long", append(append([]byte{0x1f, 0x8b, 8, flagName, 0, 0, 0, 0, 0, 0}, strings.Repeat("n", 512)...), 0), ErrHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := inflate(bytes.NewReader(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			_, stdErr := stdInflate(tt.in)
			if (stdErr == nil || stdErr == io.EOF) != (err == io.EOF) {
				t.Errorf("compress/gzip says %v", stdErr)
			}
		})
	}
	if got, err := inflate(bytes.NewReader(withHeaderCRC(good, false))); err != nil || len(got) != 1100 {
		t.Errorf("a header with its checksum: %d bytes, %v", len(got), err)
	}
}

// crc16 is the low half of the CRC-32 of b, gzip's header checksum.
func crc16(b []byte) uint16 {
	return uint16(crc32.ChecksumIEEE(b))
}

// A source's error, other than the end of the stream, is returned as it
// is.
func TestSourceError(t *testing.T) {
	good := compress(t, samples()["objects"], gzip.BestSpeed, 0)
	boom := errors.New("connection reset")
	_, err := inflate(io.MultiReader(bytes.NewReader(good[:len(good)/2]), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
}

// events hands out a stream's chunks one per read, and records and fails
// a read made before the test releases the next chunk: a reader that
// asked for more than an event's bytes before returning the event would
// wait for a watch's next event.
type events struct {
	chunks    [][]byte
	released  int
	readAhead bool
}

var errReadAhead = errors.New("read past the flushed event")

func (e *events) Read(p []byte) (int, error) {
	if len(e.chunks) == 0 {
		return 0, io.EOF
	}
	if e.released == 0 {
		e.readAhead = true
		return 0, errReadAhead
	}
	n := copy(p, e.chunks[0])
	if e.chunks[0] = e.chunks[0][n:]; len(e.chunks[0]) == 0 {
		e.chunks = e.chunks[1:]
		e.released--
	}
	return n, nil
}

// flushedEvents returns n events and the bytes a gzip writer at level
// writes for each, flushing after it; the last chunk also holds the
// stream's end.
func flushedEvents(t *testing.T, level, n int) (events, chunks [][]byte) {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		event := fmt.Appendf(nil, `{"type":"MODIFIED","object":{"name":"cm-%d","data":"%s"}}`, i, strings.Repeat("x", rng.IntN(3000)))
		events = append(events, event)
		if _, err := w.Write(event); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if i == n-1 {
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		chunks = append(chunks, bytes.Clone(buf.Bytes()))
		buf.Reset()
	}
	return events, chunks
}

var flushLevels = []int{gzip.NoCompression, gzip.BestSpeed, gzip.DefaultCompression, gzip.HuffmanOnly}

// A stream flushed after each event, as the API server writes a watch,
// yields each event from that event's bytes alone.
func TestFlushedEventsArriveAlone(t *testing.T) {
	for _, level := range flushLevels {
		want, chunks := flushedEvents(t, level, 200)
		src := &events{chunks: chunks, released: 1}
		z, err := NewReader(src)
		if err != nil {
			t.Fatal(err)
		}
		for i, event := range want {
			got := make([]byte, len(event))
			if _, err := io.ReadFull(z, got); err != nil {
				t.Fatalf("level %d, event %d: %v", level, i, err)
			}
			if !bytes.Equal(got, event) {
				t.Fatalf("level %d, event %d: %q, want %q", level, i, got, event)
			}
			if src.readAhead {
				t.Fatalf("level %d, event %d: read before the next event was sent", level, i)
			}
			src.released++
		}
		if rest, err := io.ReadAll(z); err != nil || len(rest) > 0 {
			t.Fatalf("level %d, after the events: %q, %v", level, rest, err)
		}
	}
}

// An event that arrives with the start of the next one, as when the
// reader falls behind the server, is returned without waiting for the
// rest of the next: wherever the next one is cut, even inside its
// block's header.
func TestEventArrivesWithPartOfTheNext(t *testing.T) {
	for _, level := range flushLevels {
		want, chunks := flushedEvents(t, level, 2)
		for k := 1; k < len(chunks[1]); k++ {
			first := append(bytes.Clone(chunks[0]), chunks[1][:k]...)
			src := &events{chunks: [][]byte{first, chunks[1][k:]}, released: 1}
			z, err := NewReader(src)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(want[0]))
			if _, err := io.ReadFull(z, got); err != nil {
				t.Fatalf("level %d, the next event cut after %d of its %d bytes: %v", level, k, len(chunks[1]), err)
			}
			if !bytes.Equal(got, want[0]) {
				t.Fatalf("level %d, cut after %d: %q, want %q", level, k, got, want[0])
			}
			if src.readAhead {
				t.Fatalf("level %d, the next event cut after %d of its %d bytes: read before the rest was sent", level, k, len(chunks[1]))
			}
		}
	}
}

// Reset reads a new stream with the memory of the last.
func TestReset(t *testing.T) {
	data := samples()
	z, err := NewReader(bytes.NewReader(compress(t, data["objects"], gzip.BestSpeed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, z, 1000); err != nil { // part of the first
		t.Fatal(err)
	}
	if err := z.Reset(bytes.NewReader(compress(t, data["runs"], gzip.BestSpeed, 0))); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(z)
	if err != nil || !bytes.Equal(got, data["runs"]) {
		t.Fatalf("after Reset: %d bytes, %v", len(got), err)
	}
}

// stdInflate inflates with compress/gzip.
func stdInflate(b []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// FuzzReader checks the Reader against compress/gzip: on any input both
// return the same bytes, or both fail. Inputs that compress/gzip reads
// are made from the fuzzer's bytes by compressing them, at the level and
// with the flushes its first bytes pick, and then flipping a bit where
// they say.
func FuzzReader(f *testing.F) {
	for _, data := range samples() {
		if len(data) < 5000 {
			f.Add(data, uint8(1), uint16(0), uint16(0))
		}
	}
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"), uint8(6), uint16(7), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, level uint8, flushEvery uint16, flip uint16) {
		in := compress(t, data, int(level%11)-2, int(flushEvery%64))
		if flip > 0 {
			in[int(flip)%len(in)] ^= 1 << (flip / 1024 % 8)
		}
		want, wantErr := stdInflate(in)
		got, err := inflate(iotest.HalfReader(bytes.NewReader(in)))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, compress/gzip's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("inflated %q, compress/gzip %q", got, want)
		}
	})
}

// FuzzRaw feeds the fuzzer's bytes to both readers as the DEFLATE data
// of a member, with the trailer that checks what compress/flate inflates
// from them if it does: DEFLATE data that no compressor would write.
func FuzzRaw(f *testing.F) {
	var raw bytes.Buffer
	w, _ := flate.NewWriter(&raw, flate.BestSpeed)
	w.Write([]byte("hello hello hello, raw deflate"))
	w.Close()
	f.Add(raw.Bytes())
	f.Add([]byte{0x05, 0xc0, 0x21, 0x0d, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, deflate []byte) {
		in := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, deflate...)
		if out, err := io.ReadAll(flate.NewReader(bytes.NewReader(deflate))); err == nil {
			in = binary.LittleEndian.AppendUint32(in, crc32.ChecksumIEEE(out))
			in = binary.LittleEndian.AppendUint32(in, uint32(len(out)))
		}
		want, wantErr := stdInflate(in)
		got, err := inflate(bytes.NewReader(in))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, compress/gzip's %v", err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("inflated %q, compress/gzip %q", got, want)
		}
	})
}
