package kube

import (
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A jsonValue decodes the next value of dec into the value at p, sharing
// its strings through d's interner as it reads them.
type jsonValue func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error

// compileJSON returns the decoder of t, an object's type, compiled from
// its Go type and JSON tags: it reads structs, strings, booleans,
// integers, pointers, slices, maps of strings and resource lists from the
// decoder's tokens, finding each field by its exact name, and does what
// the UnmarshalJSON methods of times, quantities and int-or-string do,
// where the default decoding goes through reflection for every value and
// hands the methods a copy to decode again. It keeps encoding/json's
// semantics, which client-go's decoding has: unknown fields skipped,
// null clearing a pointer or a slice, an array decoded into a new slice.
// Every other value (null elsewhere, a value of the wrong kind, a number
// out of range or with a fraction, a second value of a slice field,
// other types with their own decoding method, other maps, floats,
// interfaces) goes to the default decoding, so that it and its errors
// stay the default's, and its strings are shared afterwards. So does a
// struct whose fields the compiler cannot map without encoding/json's
// rules for conflicting names (two fields of one name, an embedded
// pointer, a `string` option, an unusual name).
//
// Each string field has its own interning site, shared wherever its
// struct type appears.
func compileJSON(t reflect.Type) jsonValue {
	c := jsonCompiler{structs: map[reflect.Type]*jsonValue{}, shares: newWalkCompiler(func(t reflect.Type) walk[*interner] {
		if t == objectMetaType {
			return func(unsafe.Pointer, *interner) {} // shared as it is decoded
		}
		return internLeaf(t)
	})}
	return c.value(t)
}

type jsonCompiler struct {
	// structs holds each struct type's decoder, set once compiled; while
	// it is being compiled, a recursive use calls it through the pointer.
	structs map[reflect.Type]*jsonValue
	// shares compiles the walks that share the strings of the values
	// decoded the default way, each struct type's once.
	shares *walkCompiler[*interner]
}

var (
	objectMetaType  = reflect.TypeFor[metav1.ObjectMeta]()
	timeType        = reflect.TypeFor[metav1.Time]()
	quantityType    = reflect.TypeFor[resource.Quantity]()
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
)

// ownDecoding reports whether t decodes itself, or is one of the JSON
// packages' own types (a Number), which encoding/json knows by name.
func ownDecoding(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(jsonUnmarshalerV1) || p.Implements(jsonUnmarshalerV2) || p.Implements(textUnmarshaler) ||
		strings.Contains(t.PkgPath(), "json")
}

// compiledOwn reports whether t is a type that decodes itself whose
// decoding the compiler reproduces.
func compiledOwn(t reflect.Type) bool {
	return t == timeType || t == quantityType || t == intOrStringType
}

func (c *jsonCompiler) value(t reflect.Type) jsonValue {
	switch {
	case t == objectMetaType:
		return c.meta()
	case t == timeType:
		last := new(parsedTime)
		return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
			return d.time(dec, (*metav1.Time)(p), last)
		}
	case t == stringMapType:
		keys, values := new(site), new(site)
		return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
			return d.stringMap(dec, (*map[string]string)(p), keys, values)
		}
	case t == quantityType:
		return c.quantity()
	case t == intOrStringType:
		return c.intOrString()
	case t == resourceListType:
		return c.resourceList()
	case ownDecoding(t):
		return c.fallback(t)
	}
	switch t.Kind() {
	case reflect.String:
		return c.string(t)
	case reflect.Bool:
		return c.bool(t)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return c.integer(t)
	case reflect.Pointer:
		return c.pointer(t)
	case reflect.Slice:
		return c.slice(t)
	case reflect.Struct:
		return c.structType(t)
	}
	return c.fallback(t)
}

// fallback returns the default decoding of t, followed by the walk that
// shares its strings (an ObjectMeta's are shared as it is decoded). The
// walk is compiled when first needed: the values a server writes rarely
// go to the default decoding, and a walk holds a site per string field.
// Like every decoder the compiler returns, it runs with the interner's
// lock held, which guards the compiler too.
func (c *jsonCompiler) fallback(t reflect.Type) jsonValue {
	var share walk[*interner]
	compiled := false
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		if err := json.UnmarshalDecode(dec, reflect.NewAt(t, p).Interface(), d.opts); err != nil {
			return err
		}
		if !compiled {
			share, compiled = c.shares.walk(t), true
		}
		if share != nil {
			share(p, d.in)
		}
		return nil
	}
}

func (c *jsonCompiler) meta() jsonValue {
	other := c.fallback(objectMetaType)
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		if dec.PeekKind() != '{' {
			return other(d, dec, p)
		}
		return d.unmarshal(dec, (*metav1.ObjectMeta)(p))
	}
}

func (c *jsonCompiler) string(t reflect.Type) jsonValue {
	other := c.fallback(t)
	st := new(site)
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		if dec.PeekKind() != '"' {
			return other(d, dec, p)
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		*(*string)(p) = d.in.bytes(unquote(raw), st)
		return nil
	}
}

func (c *jsonCompiler) bool(t reflect.Type) jsonValue {
	other := c.fallback(t)
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		if kind := dec.PeekKind(); kind != 't' && kind != 'f' {
			return other(d, dec, p)
		}
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		*(*bool)(p) = tok.Bool()
		return nil
	}
}

// integer decodes a number without fraction or exponent, in range.
func (c *jsonCompiler) integer(t reflect.Type) jsonValue {
	other := c.fallback(t)
	bits, signed := t.Bits(), t.Kind() <= reflect.Int64
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		if dec.PeekKind() != '0' {
			return other(d, dec, p)
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		// ParseInt's errors copy the string they quote.
		s := unsafe.String(&raw[0], len(raw))
		var n uint64
		if signed {
			var i int64
			i, err = strconv.ParseInt(s, 10, bits)
			n = uint64(i)
		} else {
			n, err = strconv.ParseUint(s, 10, bits)
		}
		if err != nil { // the default's error
			return json.Unmarshal(raw, reflect.NewAt(t, p).Interface(), d.opts)
		}
		switch bits {
		case 8:
			*(*uint8)(p) = uint8(n)
		case 16:
			*(*uint16)(p) = uint16(n)
		case 32:
			*(*uint32)(p) = uint32(n)
		default:
			*(*uint64)(p) = n
		}
		return nil
	}
}

// pointer decodes null as a nil pointer, and anything else into the value
// it points to, a new one if nil.
func (c *jsonCompiler) pointer(t reflect.Type) jsonValue {
	elemType := t.Elem()
	if elemType.Kind() == reflect.Pointer || ownDecoding(elemType) && !compiledOwn(elemType) {
		return c.fallback(t)
	}
	elem := c.value(elemType)
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		ptr := (*unsafe.Pointer)(p)
		if dec.PeekKind() == 'n' {
			*ptr = nil
			_, err := dec.ReadToken()
			return err
		}
		if *ptr == nil {
			*ptr = reflect.New(elemType).UnsafePointer()
		}
		return elem(d, dec, *ptr)
	}
}

// slice decodes null as a nil slice and an array into a new slice of its
// length; a second array for the same slice (its field repeated) goes to
// the default decoding, which merges them.
func (c *jsonCompiler) slice(t reflect.Type) jsonValue {
	other := c.fallback(t)
	if t.Elem().Kind() == reflect.Uint8 { // base64
		return other
	}
	elem := c.value(t.Elem())
	var scratch jsonScratch
	return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		s := reflect.NewAt(t, p).Elem()
		switch dec.PeekKind() {
		case 'n':
			s.SetZero()
			_, err := dec.ReadToken()
			return err
		case '[':
			if !s.IsNil() {
				return other(d, dec, p)
			}
		default:
			return other(d, dec, p)
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		// The elements are decoded into the scratch slice, then copied
		// into one of their number; a slice of the same type within them
		// grows its own.
		into, scratched := s, !scratch.busy
		if scratched {
			scratch.busy = true
			defer scratch.release()
			if !scratch.elems.IsValid() {
				scratch.elems = reflect.New(t).Elem()
			}
			into = scratch.elems
		}
		// Each element starts zero: reflect zeroes the memory it grows a
		// slice by, and the scratch slice's elements are zeroed when it
		// is released.
		for dec.PeekKind() != ']' {
			n := into.Len()
			into.Grow(1)
			into.SetLen(n + 1)
			if err := elem(d, dec, into.Index(n).Addr().UnsafePointer()); err != nil {
				return err
			}
		}
		if n := into.Len(); scratched && n > 0 {
			s.Grow(n) // in place: no slice header to allocate
			s.SetLen(n)
			reflect.Copy(s, into)
		}
		if s.IsNil() {
			s.Set(reflect.MakeSlice(t, 0, 0)) // an empty array is an empty slice
		}
		_, err := dec.ReadToken()
		return err
	}
}

// jsonScratch is the slice a compiled slice decoder decodes elements
// into, reused from one array to the next.
type jsonScratch struct {
	elems reflect.Value
	busy  bool
}

// jsonScratchMax bounds the elements a scratch slice keeps room for.
const jsonScratchMax = 1 << 10

// release zeroes the scratch slice's elements, which hold what the
// decoded slice now holds, and empties it.
func (s *jsonScratch) release() {
	s.busy = false
	s.elems.Clear()
	if s.elems.Cap() > jsonScratchMax {
		s.elems = reflect.Value{}
		return
	}
	s.elems.SetLen(0)
}

// A jsonField is a struct field's offset in its outermost struct and its
// decoder.
type jsonField struct {
	offset uintptr
	decode jsonValue
}

func (c *jsonCompiler) structType(t reflect.Type) jsonValue {
	if v, ok := c.structs[t]; ok {
		return func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
			return (*v)(d, dec, p)
		}
	}
	v := new(jsonValue)
	c.structs[t] = v
	other := c.fallback(t)
	fields := map[string]jsonField{}
	if !c.fields(t, 0, fields) {
		*v = other
		return other
	}
	*v = func(d *metaDecoder, dec *jsontext.Decoder, p unsafe.Pointer) error {
		if dec.PeekKind() != '{' {
			return other(d, dec, p)
		}
		return readObject(dec, func(name []byte) error {
			f, ok := fields[string(name)]
			if !ok {
				return dec.SkipValue()
			}
			return f.decode(d, dec, unsafe.Add(p, f.offset))
		})
	}
	return *v
}

// fields adds the fields of t, at offset base in the outermost struct,
// to fields by name, following embedded structs as encoding/json does.
// It reports false if a name repeats or a field needs encoding/json's
// rarer rules.
func (c *jsonCompiler) fields(t reflect.Type, base uintptr, fields map[string]jsonField) bool {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		for option := range strings.SplitSeq(options, ",") {
			if option == "string" {
				return false
			}
		}
		if f.Anonymous && name == "" {
			switch f.Type.Kind() {
			case reflect.Struct:
				if ownDecoding(f.Type) || !c.fields(f.Type, base+f.Offset, fields) {
					return false
				}
				continue
			case reflect.Pointer:
				return false
			}
		}
		if !f.IsExported() {
			if f.Anonymous && name != "" {
				return false // encoding/json would decode into it
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, repeated := fields[name]; repeated || !plainName(name) {
			return false
		}
		fields[name] = jsonField{base + f.Offset, c.value(f.Type)}
	}
	return true
}

// plainName reports whether name is made of letters, digits and the
// punctuation of Kubernetes' JSON names, all valid in an encoding/json
// tag.
func plainName(name string) bool {
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_.$@/", r)) {
			return false
		}
	}
	return true
}
