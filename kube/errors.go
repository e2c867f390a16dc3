package kube

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/typedcache/typedcache/reflector"
)

// ErrUnexpectedObject reports a watch event whose object is not of the
// source's type T: a misconfigured client, or a server sending a format the
// source did not ask for. The watch's Next fails with it, and the watch
// ends.
var ErrUnexpectedObject = errors.New("kube: unexpected object type in watch event")

// mapError wraps err, a failure of a List or Watch call on resource, so that
// the reflector can tell what to do: an expired or too large resource
// version (HTTP 410 Gone, or the server's ResourceVersionTooLarge cause)
// wraps reflector.ErrExpired, so the reflector relists; everything else
// (429, 5xx, connection refused, ...) keeps its cause, and the reflector
// backs off. The client-go error stays reachable through errors.As and the
// apierrors predicates.
func mapError(op, resource string, err error) error {
	if isExpired(err) {
		return fmt.Errorf("kube: %s %s: %w: %w", op, resource, reflector.ErrExpired, err)
	}
	return fmt.Errorf("kube: %s %s: %w", op, resource, err)
}

// isExpired reports whether err says that a requested resource version is
// no longer, or not yet, available. Servers before 1.18 answered 410 with
// reason Gone instead of Expired.
func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) ||
		apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

// watchError turns the object of a watch.Error event, normally a
// *metav1.Status, into the error that ends the watch.
func watchError(resource string, obj runtime.Object) error {
	return mapError("watch", resource, apierrors.FromObject(obj))
}
