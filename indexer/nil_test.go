package indexer_test

import (
	"strings"
	"testing"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/keys"
)

// A nil pointer is an error for every write (Replace included), with keys.Of and with a key
// function of the user's, which never sees it; nothing changes.
func TestWriteNilObject(t *testing.T) {
	keyFuncs := []struct {
		name string
		f    keys.Func[*obj]
	}{
		{"keys.Of", keys.Of[*obj]},
		{"user key function", func(o *obj) (string, error) { return o.Name, nil }},
	}
	for _, kf := range keyFuncs {
		t.Run(kf.name, func(t *testing.T) {
			x := indexer.New(kf.f, indexer.Indexers[*obj]{})
			if err := x.Add(&obj{Namespace: "ns", Name: "a"}); err != nil {
				t.Fatal(err)
			}
			writes := []struct {
				name  string
				write func(*obj) error
			}{{"Add", x.Add}, {"Update", x.Update}, {"Delete", x.Delete}}
			for _, w := range writes {
				if err := w.write(nil); err == nil || !strings.Contains(err.Error(), "nil pointer") {
					t.Errorf("%s(nil) = %v, want an error saying the object is a nil pointer", w.name, err)
				}
			}
			replace := func(o *obj) error { return x.Replace([]*obj{{Namespace: "ns", Name: "b"}, o}) }
			if err := replace(nil); err == nil || !strings.Contains(err.Error(), "nil pointer") {
				t.Errorf("Replace(with a nil) = %v, want an error saying the object is a nil pointer", err)
			}
			if x.Len() != 1 {
				t.Errorf("Len() = %d after nil writes, want 1", x.Len())
			}
		})
	}
}
