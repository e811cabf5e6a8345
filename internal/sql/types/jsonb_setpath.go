package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/pgerr"
)

// jsonb_set, jsonb_insert, #- and subscript assignment all walk a text[]
// path into a jsonb document and change the value at its end; they differ
// only in what happens there and when the path runs out (PostgreSQL's
// setPath with its JB_PATH_* flags). The document is never modified in
// place: each level on the path is copied, the rest shared.

type pathOp uint8

const (
	pathReplace      pathOp = 1 << iota // jsonb_set(create => false): only an existing value
	pathCreate                          // jsonb_set: replace, or add at the last level
	pathInsertBefore                    // jsonb_insert
	pathInsertAfter                     // jsonb_insert(insert_after => true)
	pathDelete                          // #-
	pathFillGaps                        // subscript assignment: build missing levels, pad arrays with nulls
)

const pathCreateOrInsert = pathCreate | pathInsertBefore | pathInsertAfter

// setPath applies op at path[level:] below v; nv is the new value (nil
// for pathDelete).
func setPath(v *jsonVal, path []Datum, level int, nv *jsonVal, op pathOp) (*jsonVal, error) {
	if level >= len(path) {
		return v, nil
	}
	if path[level].IsNull() {
		return nil, pgerr.Errorf(pgerr.NullValueNotAllowed, "path element at position %d is null", level+1)
	}
	switch v.kind {
	case jObject:
		return setPathObject(v, path, level, nv, op)
	case jArray:
		return setPathArray(v, path, level, nv, op)
	}
	if op&pathFillGaps != 0 {
		return nil, errJSONB("cannot replace existing key").
			WithDetail("The path assumes key is a composite object, but it is a scalar value.")
	}
	return v, nil
}

func setPathObject(v *jsonVal, path []Datum, level int, nv *jsonVal, op pathOp) (*jsonVal, error) {
	key := path[level].Str()
	last := level == len(path)-1
	out := &jsonVal{kind: jObject}
	found := false
	for i, k := range v.keys {
		if k != key {
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, v.vals[i])
			continue
		}
		found = true
		if last {
			if op&(pathInsertBefore|pathInsertAfter) != 0 {
				return nil, errJSONB("cannot replace existing key").
					WithHint("Try using the function jsonb_set to replace key value.")
			}
			if op&pathDelete == 0 {
				out.keys = append(out.keys, k)
				out.vals = append(out.vals, nv)
			}
			continue
		}
		r, err := setPath(v.vals[i], path, level+1, nv, op)
		if err != nil {
			return nil, err
		}
		out.keys = append(out.keys, k)
		out.vals = append(out.vals, r)
	}
	if found {
		return out, nil
	}
	switch {
	case last && op&pathCreateOrInsert != 0:
		out.keys = append(out.keys, key)
		out.vals = append(out.vals, nv)
		normalizeJSONB(out)
	case !last && op&pathFillGaps != 0:
		out.keys = append(out.keys, key)
		out.vals = append(out.vals, buildPath(path, level+1, nv))
		normalizeJSONB(out)
	}
	return out, nil
}

func setPathArray(v *jsonVal, path []Datum, level int, nv *jsonVal, op pathOp) (*jsonVal, error) {
	elem := path[level].Str()
	idx64, err := strconv.ParseInt(strings.TrimLeft(elem, " \t\n\r\v\f"), 10, 32)
	if err != nil {
		return nil, pgerr.Errorf(pgerr.InvalidTextRepresentation, "path element at position %d is not an integer: \"%s\"", level+1, elem)
	}
	n := len(v.arr)
	idx := int(idx64)
	prepend := false
	if idx < 0 {
		if -idx > n {
			if op&pathFillGaps != 0 {
				return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "path element at position %d is out of range: %d", level+1, idx)
			}
			prepend, idx = true, math.MinInt32
		} else {
			idx += n
		}
	}
	if idx > n && op&pathFillGaps == 0 {
		idx = n
	}
	last := level == len(path)-1
	out := &jsonVal{kind: jArray}
	done := false
	if (prepend || n == 0) && last && op&pathCreateOrInsert != 0 {
		if op&pathFillGaps != 0 && n == 0 {
			out.arr = append(out.arr, nullRun(idx)...)
		}
		out.arr = append(out.arr, nv)
		done = true
	}
	for i, e := range v.arr {
		if i != idx || done {
			out.arr = append(out.arr, e)
			continue
		}
		if !last {
			r, err := setPath(e, path, level+1, nv, op)
			if err != nil {
				return nil, err
			}
			out.arr = append(out.arr, r)
			continue
		}
		if op&(pathInsertBefore|pathCreate) != 0 {
			out.arr = append(out.arr, nv)
		}
		if op&(pathInsertBefore|pathInsertAfter) != 0 {
			out.arr = append(out.arr, e)
		}
		if op&(pathInsertAfter|pathReplace) != 0 {
			out.arr = append(out.arr, nv)
		}
		done = true
	}
	if done || idx < n {
		return out, nil
	}
	switch {
	case last && op&pathCreateOrInsert != 0:
		if op&pathFillGaps != 0 {
			out.arr = append(out.arr, nullRun(idx-n)...)
		}
		out.arr = append(out.arr, nv)
	case !last && op&pathFillGaps != 0:
		out.arr = append(out.arr, nullRun(idx-n)...)
		out.arr = append(out.arr, buildPath(path, level+1, nv))
	}
	return out, nil
}

// buildPath is the value subscript assignment puts where path[level:]
// finds nothing: nested objects for text elements, arrays padded with
// nulls for integer ones.
func buildPath(path []Datum, level int, nv *jsonVal) *jsonVal {
	if level >= len(path) {
		return nv
	}
	inner := buildPath(path, level+1, nv)
	elem := path[level].Str()
	if i, err := strconv.ParseInt(elem, 10, 32); err == nil {
		return &jsonVal{kind: jArray, arr: append(nullRun(int(i)), inner)}
	}
	return &jsonVal{kind: jObject, keys: []string{elem}, vals: []*jsonVal{inner}}
}

// nullRun is n JSON nulls (none for n <= 0), the padding of an array
// assigned beyond its end.
func nullRun(n int) []*jsonVal {
	var out []*jsonVal
	for i := 0; i < n; i++ {
		out = append(out, &jsonVal{kind: jNull})
	}
	return out
}
