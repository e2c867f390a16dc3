module github.com/typedcache/typedcache

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)
