package kube

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedcache/typedcache/indexer"
	"github.com/typedcache/typedcache/informer"
)

// OwnerIndex is the name of the index IndexByOwner computes: the objects
// of a cache by the UID of their controller owner. The name is reserved
// for that index.
const OwnerIndex = "kube.typedcache.io/controller-owner-uid"

// IndexByOwner is an indexer.IndexFunc that indexes an object under the
// UID of its controller owner (the owner reference with Controller set),
// and an object without one under nothing. Add it under OwnerIndex, with
// AddOwnerIndex or in informer.Options.Indexers, and list the objects an
// owner controls with OwnedBy.
//
// The index is by UID, not by the owner's name: a UID names one object of
// one kind for ever, so the objects an owner controls are found whatever
// the owner's kind or scope, and the dependents of a deleted owner, which
// the garbage collector is about to delete, are not taken for those of a
// new owner created under the same name.
func IndexByOwner[T Object](obj T) ([]string, error) {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.UID == "" {
		return nil, nil
	}
	return []string{string(ref.UID)}, nil
}

// AddOwnerIndex adds IndexByOwner to inf's cache under OwnerIndex, unless
// it has an index of that name already, so that every controller sharing
// the informer may call it. It fails as informer.Informer.AddIndexers
// does otherwise.
func AddOwnerIndex[T Object](inf *informer.Informer[T]) error {
	err := inf.AddIndexers(indexer.Indexers[T]{OwnerIndex: IndexByOwner[T]})
	if err != nil && !errors.Is(err, indexer.ErrIndexExists) {
		return fmt.Errorf("kube: AddOwnerIndex: %w", err)
	}
	return nil
}

// OwnedBy returns the objects of cache whose controller owner is owner
// (matched by UID), in time proportional to their number: the dependents
// a reconcile of owner reads, such as the Secrets a ConfigMap controls,
//
//	owned, err := kube.OwnedBy(secrets.Cache(), cm)
//
// The cache needs the index OwnerIndex (AddOwnerIndex); without it OwnedBy
// returns an error wrapping indexer.ErrUnknownIndex. An owner without a
// UID owns nothing; owner must not be nil.
func OwnedBy[T Object](cache informer.Cache[T], owner metav1.Object) ([]T, error) {
	uid := owner.GetUID()
	if uid == "" {
		return nil, nil
	}
	return cache.ByIndex(OwnerIndex, string(uid))
}
