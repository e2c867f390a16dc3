package kube

// SetNamespaceFile makes NewManager read the pod's namespace from path
// until the returned function restores the real path.
func SetNamespaceFile(path string) (restore func()) {
	old := namespaceFile
	namespaceFile = path
	return func() { namespaceFile = old }
}
