// Package keys is the ground floor of typedcache: what every other package
// needs to know about an object (Object: its namespace, name and resource
// version), how objects are keyed (Func, and the default Of), and how a
// namespace/name key is built and taken apart (Join, Split).
//
// Kubernetes API types satisfy Object through their embedded ObjectMeta, so
// neither this package nor any other of the core module imports k8s.io.
//
// # Differences from client-go
//
// Of matches client-go's MetaNamespaceKeyFunc for every valid Kubernetes
// name. Names from other sources may contain '/' or '%': Of escapes them
// ("%2F", "%25") so that two (namespace, name) pairs never share a key, and
// Split undoes the escaping; client-go would build ambiguous keys.
//
// Join of an empty name is the empty key, which Split rejects; client-go's
// ObjectToName(...).String() gives "namespace/" and SplitMetaNamespaceKey
// accepts it with an empty name.
package keys
