package kube

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// unmarshalStringMap decodes a map[string]string (labels, annotations, a
// ConfigMap's data) as encoding/json does, entry by entry from the
// decoder's tokens instead of through reflection: into the map already
// there if any, a later duplicate key winning, null values stored as "".
// null, and anything but an object, go to the default decoding.
func unmarshalStringMap(dec *jsontext.Decoder, m *map[string]string) error {
	if dec.PeekKind() != '{' {
		return errors.ErrUnsupported
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if *m == nil {
		*m = make(map[string]string)
	}
	for {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if name.Kind() == '}' {
			return nil
		}
		key := name.String() // before the next read voids name
		value, err := dec.ReadToken()
		if err != nil {
			return err
		}
		switch value.Kind() {
		case '"':
			(*m)[key] = value.String()
		case 'n':
			(*m)[key] = ""
		default:
			return fmt.Errorf("%v in a map of strings", value.Kind())
		}
	}
}
