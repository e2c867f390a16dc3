package kube

import (
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// managedConfigMap is ConfigMap i as the server returns it: a unique
// name, UID and version, and the namespace, labels and managedFields
// entry that every ConfigMap of its writer shares.
func managedConfigMap(i int) corev1.ConfigMap {
	at := metav1.NewTime(time.Date(2026, 11, 20, 10, 0, i%60, 0, time.UTC))
	return corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "team-a", Name: fmt.Sprintf("cm-%05d", i), UID: types.UID(fmt.Sprintf("uid-%05d", i)),
			ResourceVersion: fmt.Sprint(1000 + i), CreationTimestamp: at,
			Labels: map[string]string{"app": "web", "group": fmt.Sprint(i % 10)},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				Time: &at, FieldsType: "FieldsV1",
				FieldsV1: metav1.NewFieldsV1(`{"f:data":{".":{},"f:config":{}},"f:metadata":{"f:labels":{".":{},"f:app":{},"f:group":{}}}}`),
			}},
		},
		Data: map[string]string{"config": fmt.Sprintf("value-%05d", i)},
	}
}

func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// Decoded objects are equal to what they would be without interning;
// their repeated strings and field sets are one copy, their unique
// strings are their own, and the unique strings don't fill the table.
func TestInternSharesRepeatedStrings(t *testing.T) {
	const n = 2000
	list := &corev1.ConfigMapList{}
	for i := range n {
		list.Items = append(list.Items, managedConfigMap(i))
	}
	body := encodeProtobuf(t, list, "ConfigMapList")
	plain := configMapType()
	plain.strings = newInterner(reflect.TypeFor[struct{}]())
	want, _, err := listDecoder(plain.protobufList).bytes(body, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := configMapType()
	got, _, err := listDecoder(o.protobufList).bytes(body, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("interned objects differ from the decoded ones")
	}
	first := got[0]
	for _, cm := range got[1:] {
		mf, firstMF := cm.ManagedFields[0], first.ManagedFields[0]
		switch {
		case !sameString(cm.Namespace, first.Namespace):
			t.Fatalf("%s: namespace not shared", cm.Name)
		case !sameString(mf.Manager, firstMF.Manager) || !sameString(mf.APIVersion, firstMF.APIVersion):
			t.Fatalf("%s: field manager strings not shared", cm.Name)
		case mf.FieldsV1 != firstMF.FieldsV1:
			t.Fatalf("%s: field set not shared", cm.Name)
		case sameString(cm.Name, first.Name) || sameString(string(cm.UID), string(first.UID)):
			t.Fatalf("%s: unique strings share memory", cm.Name)
		}
	}
	// Names, UIDs and versions are looked up for a window, then skipped.
	if size := len(o.strings.table); size > n/4 {
		t.Errorf("the table holds %d strings after %d objects, want the unique ones mostly left out", size, n)
	}
}

// The table never holds more than internMaxEntries strings, however many
// distinct strings a site that often finds its strings sees.
func TestInternTableIsBounded(t *testing.T) {
	in := newInterner(reflect.TypeFor[string]())
	st := new(site)
	for i := range 3 * internMaxEntries {
		// Every other string is a hit, so the site stays hot and adds
		// every distinct one.
		in.str(fmt.Sprint("name-", i), st)
		if got := in.str("repeated", st); got != "repeated" {
			t.Fatalf("str(repeated) = %q", got)
		}
		if len(in.table) > internMaxEntries {
			t.Fatalf("the table holds %d strings, more than %d", len(in.table), internMaxEntries)
		}
	}
	if st.coldFor != 0 {
		t.Error("a site that finds half its strings turned cold")
	}
}

// A site that finds few of its strings turns cold: it neither looks up
// nor adds for siteColdFor strings, then is judged again.
func TestInternColdSiteSkips(t *testing.T) {
	in := newInterner(reflect.TypeFor[string]())
	st := new(site)
	for i := range siteWindow {
		in.str(fmt.Sprint("unique-", i), st)
	}
	if st.coldFor != siteColdFor {
		t.Fatalf("after %d unique strings coldFor = %d, want %d", siteWindow, st.coldFor, siteColdFor)
	}
	size := len(in.table)
	for i := range siteColdFor {
		in.str(fmt.Sprint("later-", i), st)
	}
	if len(in.table) != size || st.coldFor != 0 {
		t.Fatalf("a cold site added %d strings and has %d left to skip, want none and none", len(in.table)-size, st.coldFor)
	}
	in.str("later-0", st)
	if len(in.table) != size+1 {
		t.Error("the site was not judged again after its cold spell")
	}
}

type internNode struct {
	Name    string
	Kids    []internNode
	Next    *internNode
	Labels  map[string]string
	Created time.Time
	Pair    [2]string
	private string
}

// The walk reaches the strings of recursive types through slices,
// pointers and arrays, and leaves maps, unexported fields and times alone.
func TestInternWalksRecursiveTypes(t *testing.T) {
	in := newInterner(reflect.TypeFor[internNode]())
	fresh := func(s string) string { return string([]byte(s)) }
	tree := func() *internNode {
		return &internNode{
			Name:   fresh("root"),
			Kids:   []internNode{{Name: fresh("kid"), Next: &internNode{Name: fresh("next")}}},
			Labels: map[string]string{fresh("label-key"): fresh("label-value")}, Created: time.Unix(1, 0).In(time.UTC),
			Pair: [2]string{fresh("left"), fresh("right")}, private: fresh("private"),
		}
	}
	a, b := tree(), tree()
	bPrivate := b.private
	in.intern(unsafe.Pointer(a))
	in.intern(unsafe.Pointer(b))
	if !sameString(a.Name, b.Name) || !sameString(a.Kids[0].Name, b.Kids[0].Name) ||
		!sameString(a.Kids[0].Next.Name, b.Kids[0].Next.Name) || !sameString(a.Pair[1], b.Pair[1]) {
		t.Error("equal strings of the two trees are not shared")
	}
	if !sameString(b.private, bPrivate) {
		t.Error("an unexported field was rewritten")
	}
	for k := range b.Labels {
		for ka := range a.Labels {
			if sameString(k, ka) {
				t.Error("a map key was rewritten")
			}
		}
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the trees differ after interning: %+v, %+v", a, b)
	}
}
