package kube

import "reflect"

// watchListDeclarer is how client-go's fakes declare that they cannot
// stream lists: the fake clientset (kubernetes/fake.Clientset), the fake
// dynamic and metadata clients and the object tracker behind them all
// have IsWatchListSemanticsUnSupported, returning true, and client-go's
// informers look for it on the client they are built from.
type watchListDeclarer interface {
	IsWatchListSemanticsUnSupported() bool
}

// fakePackage and fakeName name the type every client-go fake routes its
// calls through, k8s.io/client-go/testing.Fake: it is matched by name so
// that programs do not link client-go's testing package.
const (
	fakePackage = "k8s.io/client-go/testing"
	fakeName    = "Fake"
)

// lacksWatchList reports whether client, a client or a resource client
// made from one, cannot stream lists: it declares so
// (IsWatchListSemanticsUnSupported), or it is one of client-go's fakes,
// which reach client-go's testing.Fake within a few fields (the fake typed
// clients embed it; the fake dynamic and metadata resource clients point
// to their client, which embeds it).
func lacksWatchList(client any) bool {
	if c, ok := client.(watchListDeclarer); ok {
		return c.IsWatchListSemanticsUnSupported()
	}
	return reachesFake(reflect.TypeOf(client), 3)
}

// reachesFake reports whether t is client-go's testing.Fake, or a struct,
// or pointer to one, with a field that reaches it within depth steps.
func reachesFake(t reflect.Type, depth int) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return false
	}
	if t.PkgPath() == fakePackage && t.Name() == fakeName {
		return true
	}
	if depth == 0 {
		return false
	}
	for field := range t.Fields() {
		if reachesFake(field.Type, depth-1) {
			return true
		}
	}
	return false
}
