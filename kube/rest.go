package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/rest"
)

// gentypePackage is the package of client-go's generated typed clients
// (gentype.Client), whose unexported resource and protobuf preference the
// direct path reads.
const gentypePackage = "k8s.io/client-go/gentype"

// restAccess is what the direct path needs to make the requests a
// generated typed client makes: its REST client, resource, namespace and
// content preference, and the kind its objects must have.
type restAccess struct {
	client    rest.Interface
	resource  string
	namespace string
	protobuf  bool // the client prefers protobuf (gentype.PrefersProtobuf)
	gvk       schema.GroupVersionKind
	// gzip says that the client's transport asks for gzip on its own:
	// the direct path asks for it itself, and inflates (see gzip.go).
	gzip bool
	// path is the media type the requests ask for first: DirectProtobuf
	// or DirectJSON.
	path DecodingPath
}

// typedClient is what every generated typed client (gentype.Client and
// the clients that embed it) has.
type typedClient interface {
	GetClient() rest.Interface
	GetNamespace() string
}

// restAccessOf returns the REST access of client if it is a generated
// typed client over a real REST client (not one of client-go's fakes)
// whose objects are elem: the requests it makes are then reproduced
// exactly, and only their responses are decoded differently. For every
// other client it returns an error saying why.
func restAccessOf(client any, elem reflect.Type) (restAccess, error) {
	tc, ok := client.(typedClient)
	if !ok {
		if reachesFake(reflect.TypeOf(client), 3) {
			return restAccess{}, errors.New("the client is one of client-go's fakes")
		}
		return restAccess{}, fmt.Errorf("%T is not one of client-go's generated typed clients", client)
	}
	rc, ok := tc.GetClient().(*rest.RESTClient)
	if !ok {
		return restAccess{}, fmt.Errorf("the client's REST client is a %T, not a *rest.RESTClient", tc.GetClient())
	}
	if rc == nil || rc.Client == nil {
		return restAccess{}, errors.New("the client's REST client has no HTTP client")
	}
	resource, err := gentypeField(client, "resource", reflect.String)
	if err != nil {
		return restAccess{}, err
	}
	protobuf, err := gentypeField(client, "prefersProtobuf", reflect.Bool)
	if err != nil {
		return restAccess{}, err
	}
	if resource.String() == "" {
		return restAccess{}, errors.New("the client has no resource")
	}
	accepted := accept(rc, protobuf.Bool())
	if accepted == "" {
		return restAccess{}, errors.New("the REST client's content configuration cannot be read: client-go's rest.RESTClient changed")
	}
	if !decodable(accepted) {
		return restAccess{}, fmt.Errorf("the client accepts %q, not only protobuf and JSON", accepted)
	}
	path := DirectJSON
	if strings.HasPrefix(accepted, protobufMediaType) {
		path = DirectProtobuf
	}
	return restAccess{
		client:    rc,
		resource:  resource.String(),
		namespace: tc.GetNamespace(),
		protobuf:  protobuf.Bool(),
		path:      path,
		// Generated API types are named after their kind.
		gvk:  rc.APIVersion().WithKind(elem.Name()),
		gzip: transportCompresses(rc.Client.Transport),
	}, nil
}

// gentypeField returns the unexported field name of the gentype.Client
// that client is or embeds, or an error if it has no such field of that
// kind.
func gentypeField(client any, name string, kind reflect.Kind) (reflect.Value, error) {
	missing := func() error {
		return fmt.Errorf("%T has no field %s of kind %s from %s: client-go's generated clients changed", client, name, kind, gentypePackage)
	}
	v := reflect.ValueOf(client)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Value{}, fmt.Errorf("the client is a nil %T", client)
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, missing()
	}
	sf, ok := v.Type().FieldByName(name)
	if !ok || sf.PkgPath != gentypePackage || sf.Type.Kind() != kind {
		return reflect.Value{}, missing()
	}
	f, err := v.FieldByIndexErr(sf.Index)
	if err != nil {
		return reflect.Value{}, fmt.Errorf("%T reaches its field %s through a nil pointer", client, name)
	}
	return f, nil
}

// accept returns the Accept header of the typed client's requests, as
// rest.Request sets it from the client's content configuration, or "" if
// that cannot be read.
func accept(rc *rest.RESTClient, prefersProtobuf bool) string {
	v := reflect.ValueOf(rc).Elem()
	content := v.FieldByName("content")
	if !content.IsValid() || content.Kind() != reflect.Struct {
		return ""
	}
	base := content.FieldByName("base")
	if !base.IsValid() || base.Type() != reflect.TypeFor[rest.ClientContentConfig]() {
		return ""
	}
	contentType := base.FieldByName("ContentType").String()
	acceptTypes := base.FieldByName("AcceptContentTypes").String()
	switch {
	case prefersProtobuf && contentType == "" && acceptTypes == "":
		return protobufMediaType + "," + jsonMediaType
	case acceptTypes != "":
		return acceptTypes
	case contentType != "":
		return contentType + ", */*"
	case clientfeatures.FeatureGates().Enabled(clientfeatures.ClientsAllowCBOR) &&
		clientfeatures.FeatureGates().Enabled(clientfeatures.ClientsPreferCBOR):
		return "application/cbor, */*"
	}
	return jsonMediaType + ", */*" // rest.Request's default content type
}

// The media types the direct path decodes.
const (
	jsonMediaType     = "application/json"
	protobufMediaType = "application/vnd.kubernetes.protobuf"
)

// decodable reports whether every media type an Accept header asks for
// is one the direct path decodes (or */* after one of them, which the API
// server answers with the first).
func decodable(accept string) bool {
	if accept == "" {
		return false
	}
	for i, t := range strings.Split(accept, ",") {
		t, _, _ = strings.Cut(t, ";")
		switch strings.TrimSpace(t) {
		case jsonMediaType, protobufMediaType:
		case "*/*":
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// request returns the GET request the typed client makes for opts.
func (a restAccess) request(opts metav1.ListOptions) *rest.Request {
	var timeout time.Duration
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	r := a.client.Get().
		UseProtobufAsDefaultIfPreferred(a.protobuf).
		NamespaceIfScoped(a.namespace, a.namespace != "").
		Resource(a.resource).
		VersionedParams(&opts, metav1.ParameterCodec).
		Timeout(timeout)
	if a.gzip {
		r.SetHeader("Accept-Encoding", "gzip")
	}
	return r
}

// list makes the typed client's list request and returns the response
// body, to be read as it arrives and closed. An error response is
// returned as the client would return it (an *apierrors.StatusError for a
// Status body).
func (a restAccess) list(ctx context.Context, opts metav1.ListOptions) (io.ReadCloser, error) {
	return a.request(opts).Stream(ctx)
}

// watch makes the typed client's watch request and returns the response
// body, a stream of events. Like the typed client's watches, it is not
// rate limited.
func (a restAccess) watch(ctx context.Context, opts metav1.ListOptions) (io.ReadCloser, error) {
	opts.Watch = true
	return a.request(opts).Throttle(nil).Stream(ctx)
}
