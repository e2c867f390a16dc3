package kube

import (
	"hash/maphash"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Two quantities may be shared only if nothing can tell them apart: equal
// values (Cmp) are not enough, since "0.25" and "250m" keep different
// scales, which AsDec shows. A Quantity's fields are unexported, so
// quantityFields finds their offsets once, by name and type, and
// sameQuantity compares them: the int64 form (value and scale), the
// cached string and the format. A quantity in its inf.Dec form is never
// shared. If resource.Quantity ever changes shape, ok is false and
// resource lists are left alone.
var quantityFields = findQuantityFields()

type quantityLayout struct {
	value, scale, dec, str, format uintptr
	ok                             bool
}

func findQuantityFields() quantityLayout {
	var l quantityLayout
	q := reflect.TypeFor[resource.Quantity]()
	field := func(t reflect.Type, name string, kind reflect.Kind) (uintptr, bool) {
		f, ok := t.FieldByName(name)
		return f.Offset, ok && f.Type.Kind() == kind && len(f.Index) == 1
	}
	i, okI := q.FieldByName("i")
	d, okD := q.FieldByName("d")
	if !okI || !okD || i.Type.Kind() != reflect.Struct || d.Type.Kind() != reflect.Struct || q.NumField() != 4 ||
		i.Type.NumField() != 2 || d.Type.NumField() != 1 {
		return l
	}
	value, okV := field(i.Type, "value", reflect.Int64)
	scale, okS := field(i.Type, "scale", reflect.Int32)
	dec, okP := field(d.Type, "Dec", reflect.Pointer)
	str, okStr := field(q, "s", reflect.String)
	format, okF := field(q, "Format", reflect.String)
	if !okV || !okS || !okP || !okStr || !okF {
		return l
	}
	return quantityLayout{
		value: i.Offset + value, scale: i.Offset + scale, dec: d.Offset + dec, str: str, format: format,
		ok: true,
	}
}

// quantityAt reads the fields of the quantity at p.
func quantityAt(p unsafe.Pointer) (value int64, scale int32, dec unsafe.Pointer, str, format string) {
	l := &quantityFields
	return *(*int64)(unsafe.Add(p, l.value)), *(*int32)(unsafe.Add(p, l.scale)),
		*(*unsafe.Pointer)(unsafe.Add(p, l.dec)), *(*string)(unsafe.Add(p, l.str)), *(*string)(unsafe.Add(p, l.format))
}

// sameQuantity reports whether a and b are the same quantity in the same
// form: the int64 form, with the same cached string and format.
func sameQuantity(a, b resource.Quantity) bool {
	av, as, ad, astr, af := quantityAt(unsafe.Pointer(&a))
	bv, bs, bd, bstr, bf := quantityAt(unsafe.Pointer(&b))
	return ad == nil && bd == nil && av == bv && as == bs && astr == bstr && af == bf
}

// hashQuantity hashes q's fields, and refuses a quantity in inf.Dec form.
func hashQuantity(seed maphash.Seed, q resource.Quantity) (uint64, int, bool) {
	v, sc, d, str, f := quantityAt(unsafe.Pointer(&q))
	if d != nil {
		return 0, 0, false
	}
	h := maphash.Comparable(seed, [2]int64{v, int64(sc)}) ^ maphash.String(seed, str) ^ maphash.String(seed, f)<<1
	return h, len(str) + len(f), true
}
