package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedcache/typedcache/informer"
	"github.com/typedcache/typedcache/kube"
	"github.com/typedcache/typedcache/reflector"
)

// TestNearlyRepeatingObjectsMatchClientGo decodes a long stream of
// ConfigMaps whose names, map keys and values nearly repeat, each one
// byte apart from another object's, on protobuf and JSON: a list, then
// updates that each change one byte of one object. Every object a
// read-only watch decodes, and every object the informer of kube.For
// caches at the end, is deeply equal to client-go's decoding of it. The
// read-only decoders share maps, messages and strings between objects by
// their bytes and read each item and frame from the stream's reused
// buffer: a sharing that compared less than every byte a value was
// decoded from, or a value that kept the buffer's memory, would give an
// object its neighbour's bytes.
func TestNearlyRepeatingObjectsMatchClientGo(t *testing.T) {
	const n, updates = 200, 1000
	c := newCluster(t)
	admin := c.client(t, nil)
	for _, cd := range codecs {
		t.Run(cd.name, func(t *testing.T) {
			ctx := t.Context()
			ns := c.namespace(t)
			create := func(i int) error {
				_, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, nearConfigMap(ns, i, 0), metav1.CreateOptions{})
				return err
			}
			if err := parallel(n, writers, create); err != nil {
				t.Fatal(err)
			}
			client := cd.clientset(t, c.cfg).CoreV1().ConfigMaps(ns)
			theirs := kube.SourceWithOptions[*corev1.ConfigMap](client, kube.Options{DecodeWithClient: true})
			ours := kube.Source[*corev1.ConfigMap](client)

			list, err := theirs.List(ctx, reflector.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			equalObjects(t, "read-only list", sortedByName(list.Items), listRead(t, ours, reflector.ListOptions{ReadOnly: true}))

			factory := informer.NewFactory(informer.FactoryOptions{})
			defer factory.Shutdown()
			cached := kube.For[*corev1.ConfigMap](factory, client)
			p := newProgress()
			if _, err := cached.AddEventHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
				AddFunc:    func(*corev1.ConfigMap, bool) { p.bump() },
				UpdateFunc: func(_, _ *corev1.ConfigMap) { p.bump() },
			}); err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx)

			from := reflector.WatchOptions{ResourceVersion: list.ResourceVersion}
			wTheirs := watchFrom(t, theirs, from)
			from.ReadOnly = true
			wOurs := watchFrom(t, ours, from)
			// Update k changes object k%n for the (k/n+1)-th time; writers
			// take updates in order, so an object's updates may land in any
			// order, each changing it.
			update := func(k int) error {
				_, err := admin.CoreV1().ConfigMaps(ns).Update(ctx, nearConfigMap(ns, k%n, k/n+1), metav1.UpdateOptions{})
				return err
			}
			if err := parallel(updates, writers, update); err != nil {
				t.Fatal(err)
			}
			equalObjects(t, "read-only watch", nextObjects(t, wTheirs, updates), nextObjects(t, wOurs, updates))

			want := serverState(t, admin, ns)
			waitForState(t, p, time.Minute, want, stateSource{"kube.For's cache", func() map[string]string {
				m := map[string]string{}
				for k, cm := range cached.Cache().All() {
					m[k] = cm.ResourceVersion
				}
				return m
			}})
			final, err := theirs.List(ctx, reflector.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			equalObjects(t, "kube.For's cache", sortedByName(final.Items), sortedByName(cached.Cache().List()))
		})
	}
}

// nearConfigMap is ConfigMap i of ns after round updates. Its name, its
// labels', annotations' and data's keys and values are each one byte
// apart from those of other ConfigMaps or rounds (see nearValue).
func nearConfigMap(ns string, i, round int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   ns,
			Name:        fmt.Sprintf("near-%04d", i),
			Labels:      map[string]string{"app": "web", "shard": nearValue(i, 0, 16), nearValue(i%3, 0, 8): "x"},
			Annotations: map[string]string{"note": nearValue(i, round, 40)},
		},
		Data: map[string]string{
			"a":                  nearValue(i, round, 64),
			"b":                  nearValue(i+1, round, 64),
			nearValue(i%5, 0, 6): nearValue(i, round+1, 32),
		},
	}
}

// nearValue is n zeros but for one letter: its position and the letter
// follow from i and round, so that values of neighbouring i or round
// differ in one or two bytes. It is a valid label key and value.
func nearValue(i, round, n int) string {
	b := []byte(strings.Repeat("0", n))
	b[(i+round)%n] = byte('a' + (i*7+round)%26)
	return string(b)
}
