// Package indexer provides Indexer, a thread-safe keyed store of typed
// objects with named secondary indexes, and Lister, the read-only view a
// controller reads its cache through.
//
// # Semantics
//
// An Indexer[T] stores at most one T per key; the key is computed by the
// key function given to New (keys.Of for Kubernetes objects). Add and
// Update both store an object whether or not its key is present; Delete
// removes whatever is stored under the object's key. Put and DeleteKey do
// the same for callers that already computed the key, and return the
// previous object. Replace swaps the whole content at once and rebuilds
// every index.
//
// Each index maps a value to the set of keys whose objects have it, as
// computed by an IndexFunc. An object may have several values or none. The
// Indexer calls the IndexFuncs once per written object and remembers which
// values each stored object has: an update compares the new object's values
// with them, and does no index work for an index whose values did not
// change; a delete runs no user code. No IndexFunc ever runs on a stored
// object again, so an object modified in place after it was stored (which
// callers must not do) cannot corrupt the indexes. A value whose last
// object leaves is removed from the index.
//
// A key function or IndexFunc that fails makes the operation return the error and
// leave the store exactly as it was; DeleteKey fails only on a zero Indexer. Asking for an
// index that does not exist is an error wrapping ErrUnknownIndex.
// AddIndexers indexes the objects already stored; an index name already in
// use is an error wrapping ErrIndexExists. The index name NamespaceIndex is
// reserved for indexing objects by namespace, as NamespaceIndexFunc does:
// a write whose values in it are not exactly the object's namespace fails
// with an error wrapping ErrReservedIndex, so that no index of the user's
// changes what Lister.Namespace returns.
//
// Objects are shared, not copied: the Indexer hands out the stored values,
// and callers must not modify what they point to.
//
// # Concurrency
//
// All methods are safe for simultaneous use by multiple goroutines. No user
// code (key function, IndexFunc, iterator bodies, Lister predicates) ever runs
// while the Indexer's lock is held, so such code may read the Indexer, and
// a slow function never stalls readers. Key and index functions must not
// call the Indexer's write methods.
//
// Writers compute keys and index values before taking the write lock, and
// apply the write under it without running user code. AddIndexers holds
// off writers (not readers) while it indexes the stored objects; a writer
// that computed its values before an index was added computes the new
// index's values before it writes.
//
// Objects and their keys live in two dense arrays of fixed-size blocks (128
// entries, 64 blocks to a directory), found through an open-addressing
// table of positions. List, ListKeys, All and Keys walk a snapshot of those
// arrays that later writes cannot change: a writer copies a block before
// changing it while a snapshot that may read it is still being read. Taking
// a snapshot costs constant time and takes no lock (it waits only while a
// write is under way, and writes run no user code), so full listings never
// hold off writers. While listings run, an update copies at most one block
// of object pointers (1 KB), its directory (512 bytes) and the array of
// directories (8 bytes per 8192 objects); an add or a delete copies the key
// blocks it changes, and their directories, too. Once every listing has
// ended, writes change the arrays in place again and copy nothing.
// GetByKey, ByIndex and Index hold the read lock while they look up their
// objects, ByIndex and Index for time proportional to the number of matches.
// Lister.Get and NamespaceLister.Get take no lock when T is a pointer type
// (as Kubernetes objects are): they never wait for writers, and writers
// never wait for them; a Get that overlaps an update of its object returns
// the old object or the new one.
//
// # Differences from client-go
//
//   - Typed: no interface{} and no type assertions; Lister.Get and
//     NamespaceLister.Get return T.
//   - A failing key function or IndexFunc returns an error and changes nothing;
//     client-go panics inside the store and may leave it half updated.
//   - Update and Delete never call an IndexFunc on the stored object;
//     client-go recomputes its values under the lock, and an object
//     modified in place leaves stale entries in its indexes.
//   - Index functions never run under the lock, and full listings hold the
//     lock for constant time instead of walking the map under it.
//   - An Indexer is not a Store with a resource version: there is no
//     Resync, Bookmark or LastStoreSyncResourceVersion.
//   - Put and DeleteKey return the previous object, so an informer learns
//     it with one store operation.
//   - IndexKeys and ListIndexFuncValues return sorted slices.
//   - Lister.Namespace("") selects cluster-scoped objects; client-go's
//     NamespaceAll ("") means every namespace. Use the Lister itself to read
//     every namespace.
//   - The index named NamespaceIndex must index each object by its
//     namespace alone (other writes fail with ErrReservedIndex), so no
//     index of the user's changes what Lister.Namespace returns; client-go's
//     listers list a namespace through whatever index has that name.
//   - PutPartial stores an object even when an IndexFunc fails on it,
//     leaving it out of that index only (the informer's policy); failures
//     are *IndexError values naming the index and key.
//   - A nil pointer is an error for every write, before any key function
//     sees it. A zero Indexer reads as empty and its methods that return an
//     error say to call New; a zero Lister reads as empty. client-go's
//     stores are interfaces over unexported types: only constructors make
//     them.
package indexer
