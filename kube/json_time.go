package kube

import (
	"errors"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// unmarshalTime decodes a metav1.Time as its UnmarshalJSON does, a
// string in RFC 3339 form kept in local time, reading the string token
// straight from the decoder: the method is handed a copy of the raw value
// and decodes the string out of it again through encoding/json, which
// costs more than the parsing. Anything but a string (null, or a value
// the method refuses) goes to the method, so that it, and its errors,
// stay the method's.
func unmarshalTime(dec *jsontext.Decoder, t *metav1.Time) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported // to the method
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	parsed, err := time.Parse(time.RFC3339, tok.String())
	if err != nil {
		return err
	}
	t.Time = parsed.Local()
	return nil
}
