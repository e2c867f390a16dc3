package kube

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	corev1 "k8s.io/api/core/v1"
)

// TestJSONTimeAsItsMethod decodes times, as a value (creationTimestamp)
// and behind a pointer (a managedFields entry's time), through the
// source's JSON codec and through encoding/json, which calls
// metav1.Time's UnmarshalJSON as client-go's decoding does: the objects
// must be equal, and one must fail where the other does.
func TestJSONTimeAsItsMethod(t *testing.T) {
	for _, value := range []string{
		`"2026-11-20T10:00:00Z"`,
		`"2026-11-20T10:00:00+02:00"`,
		`"2026-11-20T10:00:00.123456789-07:30"`,
		`"2026-11-20T10:00:00\u005a"`,
		`null`,
		`""`,
		`"yesterday"`,
		`"2026-11-20 10:00:00Z"`,
		`12`,
		`{}`,
		`["2026-11-20T10:00:00Z"]`,
	} {
		t.Run(value, func(t *testing.T) {
			doc := fmt.Sprintf(`{"metadata":{"creationTimestamp":%s,"managedFields":[{"manager":"m","time":%s}]}}`, value, value)
			var want, got corev1.ConfigMap
			wantErr := json.Unmarshal([]byte(doc), &want)
			gotErr := jsonv2.Unmarshal([]byte(doc), &got, configMapType().json.opts)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
			}
			if wantErr == nil && !reflect.DeepEqual(&got, &want) {
				t.Errorf("decoded\n%+v\nencoding/json decodes\n%+v", got.ObjectMeta, want.ObjectMeta)
			}
		})
	}
}
